"""Sends an image and a sound to `hybrid serve`'s on-device model with OpenAI's and Google's official clients.

Run by HybridAIServerTests (MultimodalServingTests) with the bootstrap's venv:
    .deps/venv/bin/python media_conformance.py BASE_URL MODEL IMAGE_PNG
Prints one JSON object; the Swift test compares the answers with llama-mtmd-cli's. Every call that
fails records its error instead of stopping the script.
"""
import base64
import json
import sys
import traceback

import openai
from google import genai
from google.genai import types

base_url, model, image_path = sys.argv[1], sys.argv[2], sys.argv[3]
image = open(image_path, "rb").read()
observed = {}


def record(name, action):
    try:
        observed[name] = action()
    except openai.APIStatusError as error:
        observed[name] = {"api_error": {"status": error.status_code, "body": error.body}}
    except genai.errors.APIError as error:
        observed[name] = {"api_error": {"status": error.code, "message": error.message}}
    except Exception as error:  # noqa: BLE001 - reported to the Swift test, which fails on it
        observed[name] = {"exception": repr(error), "traceback": traceback.format_exc()}


chat = openai.OpenAI(api_key="unused", base_url=base_url + "/v1beta/openai/", max_retries=0, timeout=600)
data_url = "data:image/png;base64," + base64.b64encode(image).decode()


def openai_image(stream=False):
    arguments = dict(model=model, temperature=0, max_tokens=8, messages=[{"role": "user", "content": [
        {"type": "text", "text": "Describe."}, {"type": "image_url", "image_url": {"url": data_url}}]}])
    if not stream:
        answer = chat.chat.completions.create(**arguments)
        return {"text": answer.choices[0].message.content, "prompt_tokens": answer.usage.prompt_tokens,
                "completion_tokens": answer.usage.completion_tokens}
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chat.chat.completions.create(stream=True, **arguments)
                   if chunk.choices)
    return {"text": text}


def openai_remote_image():
    return chat.chat.completions.create(model=model, max_tokens=8, messages=[{"role": "user", "content": [
        {"type": "text", "text": "Describe."}, {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}])


record("openai", openai_image)
record("openai_stream", lambda: openai_image(stream=True))
record("openai_remote", lambda: {"unexpected": str(openai_remote_image())})

gemini = genai.Client(api_key="unused", http_options=types.HttpOptions(base_url=base_url, timeout=600_000))


def gemini_image():
    answer = gemini.models.generate_content(
        model=model, contents=["Describe.", types.Part.from_bytes(data=image, mime_type="image/png")],
        config=types.GenerateContentConfig(temperature=0, max_output_tokens=8))
    details = {str(item.modality.value if hasattr(item.modality, "value") else item.modality): item.token_count
               for item in (answer.usage_metadata.prompt_tokens_details or [])}
    return {"text": answer.text, "prompt_tokens": answer.usage_metadata.prompt_token_count, "by_modality": details}


def gemini_file_uri():
    return {"unexpected": gemini.models.generate_content(model=model, contents=[
        "Describe.", types.Part.from_uri(file_uri="https://example.com/a.png", mime_type="image/png")]).text}


record("gemini", gemini_image)
record("gemini_file_uri", gemini_file_uri)
print(json.dumps(observed))
