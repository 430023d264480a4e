"""The MCP tests' own server (the official Python SDK's MCPServer, over stdio, or Streamable HTTP
with `--http PORT`; `--photo FILE` gives the `photo` tool its picture): a tool for each
kind of result HybridAI maps — text, structured output, an image, audio, an embedded resource, a
resource link, a failure (isError) and progress notifications — and one named like a tool of
mcp-server-time, so that two servers clash."""

import base64
import os
import sys

from mcp.server.mcpserver import MCPServer, Context, Image
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import AudioContent, EmbeddedResource, ResourceLink, SamplingMessage, TextContent, TextResourceContents
from pydantic import BaseModel

# The smallest valid PNG: one red pixel.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

server = MCPServer("hybridai-test")


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool(description="The weather in a city, as structured content.")
def weather(city: str) -> Weather:
    return Weather(city=city, celsius=21.5)


@server.tool(description="Draws a red pixel.")
def draw() -> Image:
    return Image(data=PIXEL, format="png")


@server.tool(description="Returns a sound, a document and a link.")
def media() -> list:
    return [
        AudioContent(type="audio", data=base64.b64encode(b"RIFF----WAVE").decode(), mime_type="audio/wav"),
        EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="file:///notes.txt", mime_type="text/plain", text="the notes")),
        ResourceLink(type="resource_link", uri="https://example.org/report.pdf", name="report"),
    ]


@server.tool(description="Always fails.")
def fail(reason: str) -> str:
    raise ToolError(f"cannot do it: {reason}")


@server.tool(description="Counts to three, reporting progress.")
async def count(ctx: Context) -> str:
    for step in range(1, 4):
        await ctx.report_progress(step, 3, f"step {step}")
    return "counted to 3"


@server.tool(description="Asks the client's model (sampling/createMessage).")
async def ask(question: str, ctx: Context) -> str:
    try:
        result = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
            max_tokens=50, system_prompt="Be brief.", temperature=0)
    except Exception as error:  # the client cannot sample: say so as the tool's failure
        raise ToolError(f"sampling refused: {error}")
    return f"the model said: {result.content.text}"


@server.tool(description="Lists the folders the client lets servers work in (roots/list).")
async def folders(ctx: Context) -> str:
    result = await ctx.session.list_roots()
    return ", ".join(str(root.uri) for root in result.roots)


class Confirmation(BaseModel):
    ok: bool


@server.tool(description="Asks the user to confirm (elicitation/create).")
async def confirm(ctx: Context) -> str:
    result = await ctx.elicit("Go ahead?", Confirmation)
    return f"elicitation: {result.action}"


@server.tool(description="Answers like mcp-server-time's tool of the same name.")
def get_current_time(timezone: str) -> str:
    return f"test server time in {timezone}"


def secret() -> str:
    """A tool that `unlock` adds."""
    return "the secret is 42"


@server.tool(description="Adds the tool `secret`, removes itself, and tells the client (tools/list_changed).")
async def unlock(ctx: Context) -> str:
    server.add_tool(secret, description="Tells the secret.")
    server.remove_tool("unlock")
    await ctx.session.send_tool_list_changed()
    return "unlocked"


@server.tool(description="Ends the server's process at once, mid-call.")
def crash() -> str:
    os._exit(1)


@server.tool(description="Answers with this many MiB of text.")
def huge(megabytes: int) -> str:
    return "x" * (megabytes << 20)


# The picture `photo` shows: the file after `--photo` on the command line.
PHOTO = sys.argv[sys.argv.index("--photo") + 1] if "--photo" in sys.argv[:-1] else None


@server.tool(description="Shows a photo.")
def photo() -> Image:
    if PHOTO is None:
        raise ToolError("this server was started without --photo")
    return Image(path=PHOTO)


if __name__ == "__main__":
    print("test server starting", file=sys.stderr)
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        # Streamable HTTP on 127.0.0.1:PORT/mcp.
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
