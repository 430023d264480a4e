"""Drives `hybrid serve` with Google's `google-genai` client: function calling and structured output.

Run by HybridAIServerTests (GoogleGenAIConformanceTests) with the bootstrap's venv:
    .deps/venv/bin/python genai_tools.py BASE_URL MODEL API_KEY
Prints one JSON object; the Swift test asserts on it. Every call that fails records its error
instead of stopping the script. Sampling is greedy and answers are short.
"""
import json
import sys
import time
import traceback

import pydantic
from google import genai
from google.genai import errors, types

base_url, model, api_key = sys.argv[1], sys.argv[2], sys.argv[3]
observed = {"genai_version": genai.__version__}
timings = {}
observed["seconds"] = timings
client = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=base_url, api_version="v1beta"))


def record(name, action):
    started = time.monotonic()
    try:
        observed[name] = action()
    except errors.APIError as error:
        observed[name] = {"api_error": {"code": error.code, "status": error.status, "message": error.message}}
    except Exception as error:  # noqa: BLE001 - reported to the Swift test, which fails on it
        observed[name] = {"exception": repr(error), "traceback": traceback.format_exc()}
    timings[name] = round(time.monotonic() - started, 3)


weather_calls = []


def get_weather(city: str) -> str:
    """Returns the current weather in a city.

    Args:
      city: The name of the city.
    """
    weather_calls.append(city)
    return f"Sunny and 21 degrees in {city}."


def part_kind(part):
    for kind in ("text", "function_call", "function_response"):
        if getattr(part, kind, None) is not None:
            return kind
    return "other"


def calls_of(response):
    return [{"name": call.name, "args": call.args, "id": call.id} for call in (response.function_calls or [])]


def automatic_function_calling():
    # ANY forces a call in every request; two remote calls let the client run the function once and
    # send its result back, then return the model's next answer.
    config = types.GenerateContentConfig(
        temperature=0, top_k=1, max_output_tokens=64, tools=[get_weather],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
            mode="ANY", allowed_function_names=["get_weather"])),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(maximum_remote_calls=2))
    chat = client.chats.create(model=model, config=config)
    response = chat.send_message("What is the weather in Paris?")
    history = chat.get_history()  # the prompt, the model's calls, the results, the model's last answer
    return {
        "calls": list(weather_calls),
        "history": [{"role": content.role, "parts": [part_kind(part) for part in content.parts]} for content in history],
        "function_responses": [part.function_response.response for content in history for part in content.parts
                               if part.function_response is not None],
        "final_calls": calls_of(response),
        "finish_reason": str(response.candidates[0].finish_reason),
    }


def streamed_function_call():
    declaration = types.FunctionDeclaration(
        name="set_alarm", description="Sets an alarm.",
        parameters=types.Schema(type="OBJECT", properties={
            "hour": types.Schema(type="INTEGER", minimum=0, maximum=23),
            "label": types.Schema(type="STRING")}, required=["hour"]))
    config = types.GenerateContentConfig(
        temperature=0, top_k=1, max_output_tokens=40, tools=[types.Tool(function_declarations=[declaration])],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    chunks = list(client.models.generate_content_stream(model=model, contents="Wake me up at seven.", config=config))
    calls = [call for chunk in chunks for call in calls_of(chunk)]
    return {"chunks": len(chunks), "calls": calls, "finish_reason": str(chunks[-1].candidates[0].finish_reason)}


class City(pydantic.BaseModel):
    name: str
    country: str


def response_schema_pydantic():
    config = types.GenerateContentConfig(temperature=0, top_k=1, max_output_tokens=60,
                                         response_mime_type="application/json", response_schema=City)
    response = client.models.generate_content(model=model, contents="Name a city in France.", config=config)
    parsed = response.parsed
    return {"text": response.text, "parsed": parsed.model_dump() if isinstance(parsed, City) else None}


colour_schema = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}, "count": {"type": "integer"}},
    "required": ["colour", "count"],
}


def response_json_schema_dict():
    config = types.GenerateContentConfig(temperature=0, top_k=1, max_output_tokens=40,
                                         response_mime_type="application/json", response_json_schema=colour_schema)
    response = client.models.generate_content(model=model, contents="Pick a colour and a count.", config=config)
    return {"text": response.text, "json": json.loads(response.text)}


record("automatic_function_calling", automatic_function_calling)
record("streamed_function_call", streamed_function_call)
record("response_schema_pydantic", response_schema_pydantic)
record("response_json_schema_dict", response_json_schema_dict)
print(json.dumps(observed))
