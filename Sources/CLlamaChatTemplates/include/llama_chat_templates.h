/* llama_chat_templates.h — a plain C API over llama.cpp's `common` chat templates (Jinja), for Swift.
 *
 * Requests and results travel as JSON text in the OpenAI Chat Completions shape, so no C++ type
 * crosses the boundary and every C++ exception is caught inside. Strings returned are malloc'd:
 * release them with hybridai_chat_string_free. On failure a function returns NULL and, when
 * `error` is not NULL, sets *error to a malloc'd message. */
#ifndef HYBRIDAI_LLAMA_CHAT_TEMPLATES_H
#define HYBRIDAI_LLAMA_CHAT_TEMPLATES_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llama_model;

/** A model's chat templates (its default one and, when the GGUF has one, its tool-use variant). */
typedef struct hybridai_chat_templates hybridai_chat_templates;

/** One rendered request: the prompt, the grammar for its tool calls, and the parser of its answers. */
typedef struct hybridai_chat_rendering hybridai_chat_rendering;

/** The templates of `model`: its own (`tokenizer.chat_template`), or `override_source` (Jinja, or
 *  "chatml") when that is neither NULL nor empty. A model without a template gets ChatML (see
 *  hybridai_chat_templates_is_model_own). A template with a syntax error fails with Jinja's message. */
hybridai_chat_templates *hybridai_chat_templates_init(const struct llama_model *model, const char *override_source,
                                                      char **error);
void hybridai_chat_templates_free(hybridai_chat_templates *templates);

/** true when the template came from the GGUF or the override; false when ChatML stood in for none. */
bool hybridai_chat_templates_is_explicit(const hybridai_chat_templates *templates);

/** The Jinja source in use. */
char *hybridai_chat_templates_source(const hybridai_chat_templates *templates);

/** What the template can do, as a JSON object of booleans (supports_tools, supports_tool_calls,
 *  supports_system_role, supports_parallel_tool_calls, …). */
char *hybridai_chat_templates_capabilities(const hybridai_chat_templates *templates);

/** Whether prompt-only requests render through common's direct path, which skips its analysis of
 *  the template on every call: 1 yes (the first one's prompt, and a probe conversation's, came out
 *  the same both ways), 0 no (a template whose handler writes prompts its own way), -1 not known
 *  until a prompt-only request has been rendered. For tests and diagnostics. */
int hybridai_chat_templates_prompts_render_directly(const hybridai_chat_templates *templates);

/** Renders a request: a JSON object with "messages" (OpenAI shape: roles system, user, assistant
 *  with optional "tool_calls", tool with "tool_call_id"), and optionally "tools", "tool_choice"
 *  ("auto", "none", "required"), "parallel_tool_calls", "add_generation_prompt" (default true),
 *  "enable_thinking" (default true), "prompt_only" (default false: the caller reads only the
 *  rendering's prompt — then, for a request without tools or tool calls, the rendering's parser
 *  may read answers as plain content; see hybridai_chat_templates_prompts_render_directly). */
hybridai_chat_rendering *hybridai_chat_render(const hybridai_chat_templates *templates, const char *request_json,
                                              char **error);
void hybridai_chat_rendering_free(hybridai_chat_rendering *rendering);

/** The rendering as JSON: {"prompt", "format", "grammar", "grammar_lazy", "grammar_triggers":
 *  [{"type": "token"|"word"|"pattern"|"pattern_full", "value", "token"}], "preserved_tokens",
 *  "additional_stops", "generation_prompt", "supports_thinking"}. */
char *hybridai_chat_rendering_json(const hybridai_chat_rendering *rendering);

/** An answer generated for `rendering` as an OpenAI assistant message: {"role", "content",
 *  "reasoning_content", "tool_calls": [{"type": "function", "function": {"name", "arguments"}}]}.
 *  `is_partial`: the answer is still being generated (streaming). */
char *hybridai_chat_parse(const hybridai_chat_rendering *rendering, const char *text, bool is_partial, char **error);

/** Sets the verbosity of common's logger (a negative level silences it). */
void hybridai_chat_set_log_verbosity(int level);

void hybridai_chat_string_free(char *string);

#ifdef __cplusplus
}
#endif
#endif
