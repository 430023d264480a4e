"""What the conformance scripts share: recording each call's outcome for the Swift test to read.

`record(observed, name, action)` stores `action()`'s result under `name`, or the API error an
official client raised (status, type, code, param, message), or any other exception with its
traceback, so one failing call never stops a script.
"""
import traceback

import openai

try:
    from google.genai import errors as genai_errors
except ImportError:  # a script that drives only the openai client
    genai_errors = None


def record(observed, name, action):
    try:
        observed[name] = action()
    except openai.APIStatusError as error:
        body = error.body if isinstance(error.body, dict) else {}
        observed[name] = {"api_error": {"status": error.status_code, "type": body.get("type"), "code": body.get("code"),
                                        "param": body.get("param"), "message": body.get("message")}}
    except Exception as error:  # noqa: BLE001 - reported to the Swift test, which fails on it
        if genai_errors is not None and isinstance(error, genai_errors.APIError):
            observed[name] = {"api_error": {"status": error.code, "status_name": error.status, "message": error.message}}
        else:
            observed[name] = {"exception": repr(error), "traceback": traceback.format_exc()}
