"""Drives `hybrid serve` with Google's official `google-genai` client and prints what it observed.

Run by HybridAIServerTests (GoogleGenAIConformanceTests) with the bootstrap's venv:
    .deps/venv/bin/python genai_conformance.py BASE_URL MODEL API_KEY
Prints one JSON object; the Swift test asserts on it. Every call that fails records its error
instead of stopping the script, so one broken endpoint does not hide the others.
"""
import json
import sys
import time
import traceback

from google import genai
from google.genai import errors, types

base_url, model, api_key = sys.argv[1], sys.argv[2], sys.argv[3]
observed = {"genai_version": genai.__version__}
timings = {}
observed["seconds"] = timings


def client(key):
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=base_url, api_version="v1beta"))


def record(name, action):
    started = time.monotonic()
    try:
        observed[name] = action()
    except errors.APIError as error:
        observed[name] = {"api_error": {"code": error.code, "status": error.status, "message": error.message}}
    except Exception as error:  # noqa: BLE001 - reported to the Swift test, which fails on it
        observed[name] = {"exception": repr(error), "traceback": traceback.format_exc()}
    timings[name] = round(time.monotonic() - started, 3)


def usage(response):
    meta = response.usage_metadata
    return {"prompt": meta.prompt_token_count, "candidates": meta.candidates_token_count, "total": meta.total_token_count}


greedy = types.GenerateContentConfig(temperature=0, top_k=1, max_output_tokens=12)
good = client(api_key)
prompt = "Name a colour."


def generate():
    response = good.models.generate_content(model=model, contents=prompt, config=greedy)
    return {"text": response.text, "usage": usage(response), "model_version": response.model_version,
            "finish_reason": str(response.candidates[0].finish_reason), "response_id": response.response_id}


def stream():
    chunks = list(good.models.generate_content_stream(model=model, contents=prompt, config=greedy))
    return {"chunks": len(chunks), "text": "".join(chunk.text or "" for chunk in chunks), "usage": usage(chunks[-1]),
            "finish_reason": str(chunks[-1].candidates[0].finish_reason)}


def system_instruction():
    config = types.GenerateContentConfig(temperature=0, top_k=1, max_output_tokens=12,
                                         system_instruction="You are a pirate on a ship at sea. Answer every question like an old pirate would, "
                                                            "in two short sentences, and end each answer with Arr!")
    response = good.models.generate_content(model=model, contents=prompt, config=config)
    return {"text": response.text, "usage": usage(response)}


def chat():
    session = good.chats.create(model=model, config=greedy, history=[
        types.Content(role="user", parts=[types.Part(text="My name is Ada.")]),
        types.Content(role="model", parts=[types.Part(text="Nice to meet you, Ada.")]),
    ])
    first = session.send_message("What is my name?")
    second = session.send_message("Say it again.")
    return {"first": {"text": first.text, "usage": usage(first)},
            "second": {"text": second.text, "usage": usage(second)},
            "history_length": len(session.get_history()),
            # Google's guide counts a chat's history this way; it ends with the model's turn.
            "history_tokens": good.models.count_tokens(model=model, contents=session.get_history()).total_tokens}


def count_tokens():
    return {"total_tokens": good.models.count_tokens(model=model, contents=prompt).total_tokens}


def list_and_get():
    names = [entry.name for entry in good.models.list()]
    info = good.models.get(model=model)
    return {"names": names, "name": info.name, "input_token_limit": info.input_token_limit,
            "supported_actions": info.supported_actions}


def logprobs():
    config = types.GenerateContentConfig(temperature=0, top_k=1, max_output_tokens=6, response_logprobs=True, logprobs=2)
    response = good.models.generate_content(model=model, contents=prompt, config=config)
    candidate = response.candidates[0]
    result = candidate.logprobs_result
    streamed = list(good.models.generate_content_stream(model=model, contents=prompt, config=config))
    last = streamed[-1].candidates[0].logprobs_result
    return {"text": response.text, "avg_logprobs": candidate.avg_logprobs,
            "chosen": [entry.token for entry in result.chosen_candidates],
            "chosen_logprobs": [entry.log_probability for entry in result.chosen_candidates],
            "chosen_ids": [entry.token_id for entry in result.chosen_candidates],
            "top": [[entry.token for entry in step.candidates] for step in result.top_candidates],
            "top_ids": [[entry.token_id for entry in step.candidates] for step in result.top_candidates],
            "streamed_text": "".join(chunk.text or "" for chunk in streamed),
            "streamed_chosen": [entry.token for entry in last.chosen_candidates] if last else None}


def candidate_text(candidate):
    return "".join(part.text or "" for part in (candidate.content.parts or [])) if candidate.content else ""


def two_candidates():
    sampled = dict(temperature=1, top_p=0.9, seed=5, max_output_tokens=6)
    config = types.GenerateContentConfig(candidate_count=2, **sampled)
    response = good.models.generate_content(model=model, contents=prompt, config=config)
    alone = good.models.generate_content(model=model, contents=prompt, config=types.GenerateContentConfig(**sampled))
    streamed, usage = {}, None
    for chunk in good.models.generate_content_stream(model=model, contents=prompt, config=config):
        for candidate in chunk.candidates or []:
            streamed[candidate.index] = streamed.get(candidate.index, "") + candidate_text(candidate)
        usage = chunk.usage_metadata or usage
    return {"indexes": [candidate.index for candidate in response.candidates],
            "texts": [candidate_text(candidate) for candidate in response.candidates], "alone": alone.text,
            "candidates_tokens": response.usage_metadata.candidates_token_count,
            "alone_tokens": alone.usage_metadata.candidates_token_count,
            "prompt_tokens": response.usage_metadata.prompt_token_count,
            "alone_prompt_tokens": alone.usage_metadata.prompt_token_count,
            "streamed": [streamed.get(0), streamed.get(1)],
            "stream_candidates_tokens": usage.candidates_token_count if usage else None}


record("generate", generate)
record("logprobs", logprobs)
record("two_candidates", two_candidates)
record("logprobs_without_response_logprobs", lambda: good.models.generate_content(
    model=model, contents=prompt, config=types.GenerateContentConfig(max_output_tokens=2, logprobs=2)).text)
record("stream", stream)
record("system_instruction", system_instruction)
record("chat", chat)
record("count_tokens", count_tokens)
record("models", list_and_get)
wrong = client("not-the-key")
record("wrong_key", lambda: wrong.models.generate_content(model=model, contents=prompt, config=greedy).text)
record("unknown_model", lambda: good.models.generate_content(model="no-such-model", contents=prompt, config=greedy).text)
print(json.dumps(observed))
