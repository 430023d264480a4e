"""Drives `hybrid serve`'s embeddings with the official clients and prints what they observed.

Run by HybridAIServerTests (EmbeddingServingTests) with the bootstrap's venv:
    .deps/venv/bin/python embeddings_conformance.py BASE_URL MODEL API_KEY TEXT...
OpenAI's `openai` client (BASE_URL/v1/) and Google's `google-genai` (BASE_URL, v1beta) embed the
TEXTs; prints one JSON object with the vectors, for the Swift test to compare with the on-device
model's own. Every call that fails records its error instead of stopping the script.
"""
import json
import math
import sys

import openai
from google import genai
from google.genai import types

import observations

base_url, model, api_key, texts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
observed = {}


def record(name, action):
    observations.record(observed, name, action)


def norm(vector):
    return math.sqrt(sum(value * value for value in vector))


oa = openai.OpenAI(api_key=api_key, base_url=base_url + "/v1/", max_retries=0, timeout=600)


def openai_default():
    # No encoding_format: the client asks for base64 and decodes it itself.
    answer = oa.embeddings.create(model=model, input=texts)
    return {"vectors": [item.embedding for item in answer.data], "indexes": [item.index for item in answer.data],
            "model": answer.model, "object": answer.object, "prompt_tokens": answer.usage.prompt_tokens,
            "total_tokens": answer.usage.total_tokens}


def openai_float():
    answer = oa.embeddings.create(model=model, input=texts[0], encoding_format="float")
    return {"vectors": [item.embedding for item in answer.data]}


def openai_dimensions():
    answer = oa.embeddings.create(model=model, input=texts[0], dimensions=64)
    vector = answer.data[0].embedding
    return {"length": len(vector), "norm": norm(vector)}


record("openai_default", openai_default)
record("openai_float", openai_float)
record("openai_dimensions", openai_dimensions)
record("openai_empty", lambda: oa.embeddings.create(model=model, input=["fine", ""]).model_dump())
record("openai_tokens", lambda: oa.embeddings.create(model=model, input=[1, 2, 3]).model_dump())
record("openai_unknown_model", lambda: oa.embeddings.create(model="no-such-model", input="hi").model_dump())
record("openai_too_many_dimensions", lambda: oa.embeddings.create(model=model, input="hi", dimensions=100000).model_dump())
record("openai_wrong_key", lambda: openai.OpenAI(api_key="wrong", base_url=base_url + "/v1/", max_retries=0)
       .embeddings.create(model=model, input="hi").model_dump())

gg = genai.Client(api_key=api_key, http_options=types.HttpOptions(base_url=base_url, api_version="v1beta"))


def genai_many():
    answer = gg.models.embed_content(model=model, contents=texts)
    return {"vectors": [embedding.values for embedding in answer.embeddings]}


def genai_configured():
    answer = gg.models.embed_content(model=model, contents=texts[0], config=types.EmbedContentConfig(
        output_dimensionality=64, task_type="RETRIEVAL_DOCUMENT"))
    vector = answer.embeddings[0].values
    return {"length": len(vector), "norm": norm(vector)}


def genai_methods():
    return {"methods": gg.models.get(model=model).supported_actions}


record("genai_many", genai_many)
record("genai_configured", genai_configured)
record("genai_methods", genai_methods)
record("genai_bad_task", lambda: gg.models.embed_content(
    model=model, contents="hi", config=types.EmbedContentConfig(task_type="NOT_A_TASK")).model_dump())

print(json.dumps(observed))
