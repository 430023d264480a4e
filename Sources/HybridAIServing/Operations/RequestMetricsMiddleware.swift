import CoreMetrics
import Hummingbird
import Synchronization

/// Counts every request by route (the matched pattern, e.g. `/v1beta/models/{model}`, so ids do not
/// make new series), method and status, times it to the end of its body (a stream's whole length),
/// and keeps the number in flight. Runs outside the error middleware, so it sees the status the
/// client got.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics
  private let active: CoreMetrics.Meter

  init(metrics: ServerMetrics) {
    self.metrics = metrics
    active = metrics.meter(MetricName.httpActiveRequests)
  }

  /// The `route` label: the matched pattern, with the method after a model name
  /// (`/v1beta/models/{model}:generateContent`, so a stream's seconds and a token count's
  /// milliseconds are not one histogram); `unmatched` for a path no route has.
  static func routeLabel(_ endpointPath: String?, path: String) -> String {
    guard let endpointPath, endpointPath != "NotFound" else { return "unmatched" }
    guard endpointPath.hasSuffix("}"), let slash = path.lastIndex(of: "/"), let colon = path[slash...].lastIndex(of: ":") else {
      return endpointPath
    }
    // Only the methods the APIs have: an unknown one is `:other`, so requests cannot add labels without end.
    let method = path[path.index(after: colon)...]
    let known = ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents", "download"]
      .contains(method)
    return endpointPath + ":" + (known ? method : "other")
  }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    let started = ContinuousClock.now
    active.increment()
    let method = request.method.rawValue
    do {
      var response = try await next(request, context)
      let status = response.status.code
      let metrics = self.metrics
      let active = self.active
      let route = Self.routeLabel(context.endpointPath, path: request.uri.path)
      let record: @Sendable () -> Void = {
        metrics.counter(MetricName.httpRequests, [("route", route), ("method", method), ("status", "\(status)")]).increment()
        metrics.timer(MetricName.httpRequestDuration, [("route", route), ("method", method)])
          .recordInterval(since: started)
        active.decrement()
      }
      // Recorded when the body has been written (a stream's last byte), or has failed.
      let body = response.body
      response.body = ResponseBody(contentLength: body.contentLength) { writer in
        do {
          try await body.write(writer)
          record()
        } catch {
          record()
          throw error
        }
      }
      return response
    } catch {
      let route = Self.routeLabel(context.endpointPath, path: request.uri.path)
      let status = (error as? any HTTPResponseError)?.status.code ?? 500
      metrics.counter(MetricName.httpRequests, [("route", route), ("method", method), ("status", "\(status)")]).increment()
      active.decrement()
      throw error
    }
  }
}

extension CoreMetrics.Timer {
  /// Records `duration`.
  public func record(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  /// Records the time since `start`.
  func recordInterval(since start: ContinuousClock.Instant) { record(ContinuousClock.now - start) }
}
