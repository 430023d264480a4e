import Foundation
import Hummingbird
import NIOCore

/// The endpoints an operator's tools call: `GET /healthz` (the process answers; like every response, its
/// `Server` header names HybridAI's version), `GET /readyz`
/// (ready for work: every required readiness check passes and the server is not stopping; `503`
/// with the reasons otherwise; failing optional checks listed under `degraded`), `GET /metrics`
/// (Prometheus' text format). No API key: they are for the machine's own monitoring; bind to
/// loopback or filter them at the proxy when that matters.
struct OperationsAPI: ServerComponent {
  let health: ServerHealth
  let metrics: ServerMetrics

  func addRoutes(to router: Router<BasicRequestContext>, server: ServerConfiguration) {
    let health = self.health
    let metrics = self.metrics
    router.get("/healthz") { _, _ in
      Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
    }
    router.get("/readyz") { _, _ in
      let status = await health.status()
      var object: [String: Any] = ["ready": status.isReady, "problems": status.problems]
      if !status.degraded.isEmpty { object["degraded"] = status.degraded }
      let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
      return Response(status: status.isReady ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                      body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
    router.get("/metrics") { _, _ in
      let text = await metrics.exposition()
      return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                      body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }
  }
}
