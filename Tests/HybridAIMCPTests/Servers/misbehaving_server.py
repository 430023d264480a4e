"""An MCP server that breaks the protocol in one way, chosen by `--mode`, written on the standard
library alone (the official SDK cannot be made to misbehave):

  banner       prints a line of plain text on stdout first, then behaves
  noise        answers every message with a line that is not JSON
  old-version  answers initialize with a protocol version no client knows
  bad-schema   lists a tool whose input schema is not a JSON Schema, beside a good one
  stray-id     answers a tool call with a response to a request never made first, then the real one
  cut-stream   (with --http PORT) answers a call of `echo` with the text "cut" with server-sent
               events, and closes the connection after the first, before the result
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[sys.argv.index("--mode") + 1]

GOOD_TOOL = {"name": "echo", "description": "Says its text back.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
BROKEN_TOOLS = [
    {"name": "broken", "description": "Its properties are a string.",
     "inputSchema": {"type": "object", "properties": "text"}},
    {"name": "scalar", "description": "Its input is a number, not an object.",
     "inputSchema": {"type": "number"}},
]


def answer(message):
    """The responses to one message: a list of JSON-RPC objects (none for a notification)."""
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return []
    if method == "initialize":
        version = "1999-01-01" if MODE == "old-version" else message["params"]["protocolVersion"]
        return [{"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "misbehaving", "version": "1"}}}]
    if method == "tools/list":
        tools = [GOOD_TOOL] + (BROKEN_TOOLS if MODE == "bad-schema" else [])
        return [{"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}}]
    if method == "tools/call":
        text = message["params"].get("arguments", {}).get("text", "")
        result = {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
        if MODE == "stray-id":
            return [{"jsonrpc": "2.0", "id": 424242, "result": {"content": []}}, result]
        return [result]
    return [{"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}}]


def serve_stdio():
    if MODE == "banner":
        print("misbehaving server ready (this line is not JSON)", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        if MODE == "noise":
            print("hello from a server that does not speak JSON", flush=True)
            continue
        for response in answer(json.loads(line)):
            print(json.dumps(response), flush=True)


class CutStreamHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"   # the body ends when the connection closes

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        arguments = message.get("params", {}).get("arguments", {})
        if message.get("method") == "tools/call" and arguments.get("text") == "cut":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            token = message["params"].get("_meta", {}).get("progressToken", "none")
            progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 1, "total": 3}}
            self.wfile.write(f"data: {json.dumps(progress)}\n\n".encode())
            self.wfile.flush()
            return   # the connection closes here, before the result
        responses = answer(message)
        if not responses:
            self.send_response(202)
            self.end_headers()
            return
        body = json.dumps(responses[0]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.send_response(405)
        self.end_headers()

    def log_message(self, format, *args):
        print(format % args, file=sys.stderr)


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        ThreadingHTTPServer(("127.0.0.1", port), CutStreamHandler).serve_forever()
    else:
        serve_stdio()
