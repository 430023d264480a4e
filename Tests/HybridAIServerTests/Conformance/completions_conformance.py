"""Drives `hybrid serve`'s legacy text completions with OpenAI's official client and prints what it observed.

Run by HybridAIServerTests (TextCompletionServingTests) with the bootstrap's venv:
    .deps/venv/bin/python completions_conformance.py BASE_URL MODEL PROMPT
The client talks to BASE_URL/v1/. Prints one JSON object; every call that fails records its error
instead of stopping the script.
"""
import json
import sys

import openai

import observations

base_url, model, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
client = openai.OpenAI(api_key="unused", base_url=base_url + "/v1/", max_retries=0, timeout=600)
observed = {}


def record(name, action):
    observations.record(observed, name, action)


def unary():
    answer = client.completions.create(model=model, prompt=prompt, max_tokens=8, temperature=0)
    choice = answer.choices[0]
    return {"text": choice.text, "finish_reason": choice.finish_reason, "object": answer.object, "model": answer.model,
            "id": answer.id, "prompt_tokens": answer.usage.prompt_tokens, "completion_tokens": answer.usage.completion_tokens}


def streamed():
    pieces, finish, usage = [], None, None
    for chunk in client.completions.create(model=model, prompt=prompt, max_tokens=8, temperature=0, stream=True,
                                           stream_options={"include_usage": True}):
        for choice in chunk.choices:
            pieces.append(choice.text)
            finish = choice.finish_reason or finish
        if chunk.usage:
            usage = chunk.usage.completion_tokens
    return {"text": "".join(pieces), "finish_reason": finish, "completion_tokens": usage}


def several():
    answer = client.completions.create(model=model, prompt=[prompt, "The capital of France is"], n=2, max_tokens=4,
                                       temperature=0.8, seed=11)
    return {"indexes": [choice.index for choice in answer.choices], "texts": [choice.text for choice in answer.choices],
            "prompt_tokens": answer.usage.prompt_tokens, "completion_tokens": answer.usage.completion_tokens}


def logprobs():
    answer = client.completions.create(model=model, prompt=prompt, max_tokens=6, temperature=0, logprobs=2)
    choice = answer.choices[0]
    lp = choice.logprobs
    return {"text": choice.text, "tokens": lp.tokens, "token_logprobs": lp.token_logprobs,
            "top_logprobs": lp.top_logprobs, "text_offset": lp.text_offset}


def echo():
    answer = client.completions.create(model=model, prompt=prompt, max_tokens=4, temperature=0, echo=True)
    return {"text": answer.choices[0].text}


def default_length():
    answer = client.completions.create(model=model, prompt="Write a very long story about a dragon:", temperature=0)
    return {"completion_tokens": answer.usage.completion_tokens, "finish_reason": answer.choices[0].finish_reason}


record("unary", unary)
record("streamed", streamed)
record("several", several)
record("logprobs", logprobs)
record("echo", echo)
record("default_length", default_length)
record("suffix", lambda: client.completions.create(model=model, prompt=prompt, suffix="end").model_dump())
record("tokens", lambda: client.completions.create(model=model, prompt=[1, 2, 3]).model_dump())
record("echo_logprobs", lambda: client.completions.create(model=model, prompt=prompt, echo=True, logprobs=1).model_dump())
record("too_many_logprobs", lambda: client.completions.create(model=model, prompt=prompt, logprobs=21).model_dump())
record("too_long", lambda: client.completions.create(model=model, prompt="word " * 3000, max_tokens=4).model_dump())
record("zero_tokens", lambda: client.completions.create(model=model, prompt=prompt, max_tokens=0).model_dump())
print(json.dumps(observed))
