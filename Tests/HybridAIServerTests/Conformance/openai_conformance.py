"""Drives `hybrid serve`'s OpenAI API with OpenAI's official `openai` client and prints what it observed.

Run by HybridAIServerTests (OpenAIClientConformanceTests) with the bootstrap's venv:
    .deps/venv/bin/python openai_conformance.py BASE_URL MODEL API_KEY
BASE_URL is the server's root; the client talks to BASE_URL/v1beta/openai/ (and, in at_v1, to BASE_URL/v1/).
Prints one JSON object;
the Swift test asserts on it. Every call that fails records its error instead of stopping the script.
"""
import json
import sys
import time
import traceback

import openai
import pydantic

base_url, model, api_key = sys.argv[1], sys.argv[2], sys.argv[3]
observed = {"openai_version": openai.__version__}
timings = {}
observed["seconds"] = timings


def client(key):
    return openai.OpenAI(api_key=key, base_url=base_url + "/v1beta/openai/", max_retries=0, timeout=600)


def record(name, action):
    started = time.monotonic()
    try:
        observed[name] = action()
    except openai.APIStatusError as error:
        body = error.body if isinstance(error.body, dict) else {}
        observed[name] = {"api_error": {"class": type(error).__name__, "status": error.status_code,
                                        "type": body.get("type"), "code": body.get("code"), "param": body.get("param"),
                                        "message": body.get("message")}}
    except Exception as error:  # noqa: BLE001 - reported to the Swift test, which fails on it
        observed[name] = {"exception": repr(error), "traceback": traceback.format_exc()}
    timings[name] = round(time.monotonic() - started, 3)


ok = client(api_key)
messages = [{"role": "system", "content": "You are brief."}, {"role": "user", "content": "Name a colour."}]


def models():
    listed = ok.models.list()
    one = ok.models.retrieve(model)
    return {"ids": [entry.id for entry in listed.data], "retrieved": one.id, "owned_by": one.owned_by}


def unary():
    answer = ok.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=12)
    choice = answer.choices[0]
    return {"text": choice.message.content, "role": choice.message.role, "finish_reason": choice.finish_reason,
            "model": answer.model, "object": answer.object,
            "usage": {"prompt": answer.usage.prompt_tokens, "completion": answer.usage.completion_tokens,
                      "total": answer.usage.total_tokens}}


def stream():
    chunks = ok.chat.completions.create(model=model, messages=messages, temperature=0, max_completion_tokens=12,
                                        stream=True, stream_options={"include_usage": True})
    text, count, finish, usage = "", 0, None, None
    for chunk in chunks:
        count += 1
        if chunk.usage is not None:
            usage = {"prompt": chunk.usage.prompt_tokens, "completion": chunk.usage.completion_tokens}
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
    return {"text": text, "chunks": count, "finish_reason": finish, "usage": usage}


weather_tool = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                   "additionalProperties": False}}}


def tools():
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = ok.chat.completions.create(model=model, messages=question, tools=[weather_tool], temperature=0, max_tokens=128,
                                       tool_choice={"type": "function", "function": {"name": "get_weather"}})
    choice = first.choices[0]
    call = choice.message.tool_calls[0]
    arguments = json.loads(call.function.arguments)
    follow_up = question + [choice.message.model_dump(exclude_none=True),
                            {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 24 degrees."}]
    second = ok.chat.completions.create(model=model, messages=follow_up, tools=[weather_tool], tool_choice="none",
                                        temperature=0, max_tokens=24)
    return {"finish_reason": choice.finish_reason, "name": call.function.name, "arguments": arguments,
            "call_id": call.id, "answer": second.choices[0].message.content,
            "answer_finish_reason": second.choices[0].finish_reason}


def streamed_tool_call():
    chunks = ok.chat.completions.create(model=model, messages=[{"role": "user", "content": "Weather in Rome?"}],
                                        tools=[weather_tool], tool_choice="required", temperature=0, max_tokens=64,
                                        stream=True)
    calls, finish = {}, None   # by index, as OpenAI clients accumulate tool-call deltas
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
                call["id"] = delta.id or call["id"]
                if delta.function:
                    call["name"] += delta.function.name or ""
                    call["arguments"] += delta.function.arguments or ""
            finish = choice.finish_reason or finish
    ordered = [calls[index] for index in sorted(calls)]
    return {"names": [call["name"] for call in ordered], "ids": [call["id"] for call in ordered],
            "arguments": [json.loads(call["arguments"]) for call in ordered], "finish_reason": finish}


class CityGuide(pydantic.BaseModel):
    city: str = pydantic.Field(max_length=40)
    sights: list[str] = pydantic.Field(min_length=1, max_length=3)


def structured():
    parsed = ok.chat.completions.parse(model=model, temperature=0, max_tokens=200, response_format=CityGuide,
                                       messages=[{"role": "user", "content": "A short guide to Rome."}])
    guide = parsed.choices[0].message.parsed
    return {"city": guide.city, "sights": guide.sights, "content": parsed.choices[0].message.content}


def json_object():
    answer = ok.chat.completions.create(model=model, temperature=0, max_tokens=120, response_format={"type": "json_object"},
                                        messages=[{"role": "user", "content": 'A cat as a JSON object with the keys "name" and "color".'}])
    return {"object": json.loads(answer.choices[0].message.content)}


def at_v1():
    """The conventional base URL of local servers (llama-server, Ollama, vLLM): BASE_URL/v1/. Its
    model routes are shared with the Gemini API's v1, which google-genai reads on the same path."""
    v1 = openai.OpenAI(api_key=api_key, base_url=base_url + "/v1/", max_retries=0, timeout=600)
    listed = v1.models.list()
    one = v1.models.retrieve(model)
    answer = v1.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=12)
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in v1.chat.completions.create(
        model=model, messages=messages, temperature=0, max_tokens=12, stream=True) if chunk.choices)
    from google import genai
    from google.genai import types
    gemini = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=base_url, api_version="v1"))
    gemini_models = list(gemini.models.list())
    gemini_one = gemini.models.get(model=model)
    return {"ids": [entry.id for entry in listed.data], "retrieved": one.id, "owned_by": one.owned_by,
            "text": answer.choices[0].message.content, "streamed": streamed,
            "gemini_names": [entry.name for entry in gemini_models], "gemini_limit": gemini_one.input_token_limit}


record("models", models)
record("at_v1", at_v1)
record("unary", unary)
record("stream", stream)
record("tools", tools)
record("streamed_tool_call", streamed_tool_call)
record("structured", structured)
record("json_object", json_object)
record("wrong_key", lambda: client("wrong-key").chat.completions.create(model=model, messages=messages, max_tokens=2))
record("unknown_model", lambda: ok.chat.completions.create(model="gpt-nothing", messages=messages, max_tokens=2))
record("cut_short", lambda: ok.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "Weather in Oslo?"}], tools=[weather_tool],
    tool_choice="required", temperature=0, max_tokens=4))


def two_choices():
    sampled = dict(model=model, messages=messages, max_tokens=6, temperature=1, seed=5)
    answer = ok.chat.completions.create(n=2, **sampled)
    alone = ok.chat.completions.create(**sampled)
    streamed, finishes = {}, {}
    for chunk in ok.chat.completions.create(n=2, stream=True, **sampled):
        for choice in chunk.choices:
            streamed[choice.index] = streamed.get(choice.index, "") + (choice.delta.content or "")
            if choice.finish_reason:
                finishes[choice.index] = choice.finish_reason
    greedy = ok.chat.completions.create(model=model, messages=messages, max_tokens=6, temperature=0, n=2)
    return {"indexes": [choice.index for choice in answer.choices], "texts": [choice.message.content for choice in answer.choices],
            "alone": alone.choices[0].message.content, "completion_tokens": answer.usage.completion_tokens,
            "alone_tokens": alone.usage.completion_tokens, "prompt_tokens": answer.usage.prompt_tokens,
            "alone_prompt_tokens": alone.usage.prompt_tokens,
            "streamed": [streamed.get(0), streamed.get(1)], "stream_finishes": [finishes.get(0), finishes.get(1)],
            "greedy": [choice.message.content for choice in greedy.choices]}


record("two_choices", two_choices)
record("too_many_choices", lambda: ok.chat.completions.create(model=model, messages=messages, max_tokens=2, n=17))
# GET /v1/models is shared with the Gemini API: an OpenAI client still gets OpenAI's errors there.
record("v1_models_wrong_key", lambda: openai.OpenAI(api_key="wrong-key", base_url=base_url + "/v1/", max_retries=0,
                                                    timeout=60).models.list())
record("v1_model_unknown", lambda: openai.OpenAI(api_key=api_key, base_url=base_url + "/v1/", max_retries=0,
                                                 timeout=60).models.retrieve("gpt-nothing"))


def calls_in_one_answer(parallel):
    answer = ok.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "What is the weather in Paris?"}], tools=[weather_tool],
        tool_choice="required", temperature=0, max_tokens=96, parallel_tool_calls=parallel)
    return {"calls": len(answer.choices[0].message.tool_calls or []), "finish_reason": answer.choices[0].finish_reason}


record("one_call", lambda: calls_in_one_answer(False))


def logprobs():
    answer = ok.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=6, logprobs=True,
                                        top_logprobs=3)
    content = answer.choices[0].logprobs.content
    streamed_text, streamed = "", []
    for chunk in ok.chat.completions.create(model=model, messages=messages, temperature=0, max_tokens=6, logprobs=True,
                                            stream=True):
        for choice in chunk.choices:
            streamed_text += choice.delta.content or ""
            if choice.logprobs is not None and choice.logprobs.content:
                streamed += choice.logprobs.content
    return {"text": answer.choices[0].message.content,
            "tokens": [entry.token for entry in content], "logprobs": [entry.logprob for entry in content],
            "bytes": bytes(b for entry in content for b in entry.bytes).decode("utf-8", "replace"),
            "top_tokens": [[alternative.token for alternative in entry.top_logprobs] for entry in content],
            "top_logprobs": [[alternative.logprob for alternative in entry.top_logprobs] for entry in content],
            "streamed_text": streamed_text, "streamed_tokens": [entry.token for entry in streamed],
            "streamed_logprobs": [entry.logprob for entry in streamed],
            "streamed_top": [len(entry.top_logprobs) for entry in streamed]}


record("logprobs", logprobs)
record("too_many_top_logprobs", lambda: ok.chat.completions.create(model=model, messages=messages, max_tokens=2,
                                                                   logprobs=True, top_logprobs=21))
record("bad_tool_schema", lambda: ok.chat.completions.create(
    model=model, messages=messages, max_tokens=2,
    tools=[{"type": "function", "function": {"name": "f", "parameters": {"type": "objectz"}}}]))
record("too_long", lambda: ok.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "word " * 3000}], max_tokens=2))
print(json.dumps(observed))
