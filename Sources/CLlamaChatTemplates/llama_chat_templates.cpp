// llama_chat_templates.cpp — the C API of llama_chat_templates.h over llama.cpp's common/chat.h.
// No C++ exception leaves this file: each entry point catches everything and reports a message.
#include "llama_chat_templates.h"

#include "chat.h"  // llama.cpp common/chat.h (from .deps/llama/include/llama-common)
#include "log.h"
#include "llama.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

struct hybridai_chat_templates {
  common_chat_templates_ptr templates;
  bool add_bos = false;
  bool add_eos = false;
  // Whether a prompt-only request renders through common's direct path (`force_pure_content`):
  // -1 not known yet, 0 no, 1 yes. See render_prompt_only.
  mutable std::atomic<int> prompts_render_directly{-1};
};

struct hybridai_chat_rendering {
  common_chat_params params;
  common_chat_parser_params parser;  // with the parser loaded once, not per streamed token
};

namespace {

char *copy_string(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy != nullptr) {
    std::memcpy(copy, text.data(), text.size());
    copy[text.size()] = '\0';
  }
  return copy;
}

void report(char **error, const char *message) {
  if (error != nullptr) *error = copy_string(message != nullptr ? message : "unknown error");
}

const char *trigger_type_name(common_grammar_trigger_type type) {
  switch (type) {
    case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN: return "token";
    case COMMON_GRAMMAR_TRIGGER_TYPE_WORD: return "word";
    case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN: return "pattern";
    case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL: return "pattern_full";
  }
  return "unknown";
}

// The prompt of a request whose caller needs nothing else of the rendering (no tools, no tool
// calls or results in its messages: HybridAI then reads the answer itself).
//
// For a template without a handler of its own, common_chat_templates_apply runs its differential
// autoparser on every call: it renders the template with probe inputs to learn its structure
// (reasoning tags, tool-call syntax) for the answer's parser — ~0.65 ms of a ~1 ms render on the
// 2-core VM, the same for every request. Its prompt is the template applied directly, which is
// what `force_pure_content` renders, without the analysis. A template with a handler of its own
// (GPT-OSS, Ministral 3, Functionary, Kimi, …) may write its prompt differently. So the first
// prompt-only request of a template is rendered both ways, and so is a conversation with every
// plain role; where both prompts agree, later prompt-only requests take the direct path alone.
common_chat_params render_prompt_only(const hybridai_chat_templates *templates, common_chat_templates_inputs inputs) {
  const int known = templates->prompts_render_directly.load();
  if (known == 1) inputs.force_pure_content = true;
  common_chat_params rendering = common_chat_templates_apply(templates->templates.get(), inputs);
  if (known != -1) return rendering;
  auto both_ways_agree = [templates](common_chat_templates_inputs probe, const std::string &prompt) {
    probe.force_pure_content = true;
    return common_chat_templates_apply(templates->templates.get(), probe).prompt == prompt;
  };
  common_chat_templates_inputs conversation = inputs;
  conversation.messages.clear();
  for (const auto &[role, text] : std::vector<std::pair<std::string, std::string>>{
           {"system", "Be brief."}, {"user", "Name a colour."}, {"assistant", "Blue."}, {"user", "Another one?"}}) {
    common_chat_msg message;
    message.role = role;
    message.content = text;
    conversation.messages.push_back(message);
  }
  bool agree = false;
  try {
    agree = both_ways_agree(inputs, rendering.prompt) &&
            both_ways_agree(conversation, common_chat_templates_apply(templates->templates.get(), conversation).prompt);
  } catch (...) {
    // A template that refuses the probe conversation keeps the full path; this request was
    // rendered already.
  }
  templates->prompts_render_directly.store(agree ? 1 : 0);
  return rendering;
}

common_json string_array(const std::vector<std::string> &strings) {
  common_json array = common_json::array();
  for (const auto &string : strings) array.push_back(string);
  return array;
}

}  // namespace

extern "C" {

hybridai_chat_templates *hybridai_chat_templates_init(const struct llama_model *model, const char *override_source,
                                                      char **error) {
  const std::string override_text = override_source != nullptr ? override_source : "";
  if (model == nullptr && override_text.empty()) {  // common would abort (GGML_ASSERT)
    report(error, "a model or a template source is needed");
    return nullptr;
  }
  try {
    auto *result = new hybridai_chat_templates();
    try {
      result->templates = common_chat_templates_init(model, override_text);
    } catch (...) {
      delete result;
      // common rethrows a sliced std::exception ("std::exception"): parse the source once more
      // for Jinja's own message (which names the line), then fall back to the original error.
      std::string source = override_text;
      if (source.empty() && model != nullptr) {
        const char *own = llama_model_chat_template(model, nullptr);
        source = own != nullptr ? own : "";
      }
      common_chat_template probe(source, "", "");
      throw;
    }
    if (model != nullptr) {
      const llama_vocab *vocab = llama_model_get_vocab(model);
      result->add_bos = llama_vocab_get_add_bos(vocab);
      result->add_eos = llama_vocab_get_add_eos(vocab);
    }
    return result;
  } catch (const std::exception &exception) {
    report(error, exception.what());
  } catch (...) {
    report(error, "unknown C++ exception");
  }
  return nullptr;
}

void hybridai_chat_templates_free(hybridai_chat_templates *templates) { delete templates; }

int hybridai_chat_templates_prompts_render_directly(const hybridai_chat_templates *templates) {
  return templates != nullptr ? templates->prompts_render_directly.load() : -1;
}

bool hybridai_chat_templates_is_explicit(const hybridai_chat_templates *templates) {
  return templates != nullptr && common_chat_templates_was_explicit(templates->templates.get());
}

char *hybridai_chat_templates_source(const hybridai_chat_templates *templates) {
  try {
    return copy_string(common_chat_templates_source(templates->templates.get()));
  } catch (...) {
    return nullptr;
  }
}

char *hybridai_chat_templates_capabilities(const hybridai_chat_templates *templates) {
  try {
    common_json capabilities = common_json::object();
    for (const auto &[name, value] : common_chat_templates_get_caps(templates->templates.get())) {
      capabilities[name] = value;
    }
    return copy_string(capabilities.dump());
  } catch (...) {
    return nullptr;
  }
}

hybridai_chat_rendering *hybridai_chat_render(const hybridai_chat_templates *templates, const char *request_json,
                                              char **error) {
  try {
    const auto request = common_json::parse(request_json);
    common_chat_templates_inputs inputs;
    inputs.use_jinja = true;
    inputs.add_bos = templates->add_bos;  // a leading BOS in the text is left to the tokenizer
    inputs.add_eos = templates->add_eos;
    inputs.messages = common_chat_msgs_parse_oaicompat(request.at("messages"));
    if (request.contains("tools")) inputs.tools = common_chat_tools_parse_oaicompat(request.at("tools"));
    if (request.contains("tool_choice")) {
      inputs.tool_choice = common_chat_tool_choice_parse_oaicompat(request.at("tool_choice").get<std::string>());
    }
    inputs.add_generation_prompt = request.value("add_generation_prompt", true);
    inputs.parallel_tool_calls = request.value("parallel_tool_calls", false);
    inputs.enable_thinking = request.value("enable_thinking", true);
    inputs.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
    auto *rendering = new hybridai_chat_rendering();
    try {
      bool prompt_only = request.value("prompt_only", false) && !request.contains("tools");
      for (const auto &message : request.at("messages")) {
        if (message.value("role", "") == "tool" || message.contains("tool_calls")) prompt_only = false;
      }
      rendering->params = prompt_only ? render_prompt_only(templates, inputs)
                                      : common_chat_templates_apply(templates->templates.get(), inputs);
      rendering->parser = common_chat_parser_params(rendering->params);
      rendering->parser.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
      if (!rendering->params.parser.empty()) rendering->parser.parser.load(rendering->params.parser);
    } catch (...) {
      delete rendering;
      throw;
    }
    return rendering;
  } catch (const std::exception &exception) {
    report(error, exception.what());
  } catch (...) {
    report(error, "unknown C++ exception");
  }
  return nullptr;
}

void hybridai_chat_rendering_free(hybridai_chat_rendering *rendering) { delete rendering; }

char *hybridai_chat_rendering_json(const hybridai_chat_rendering *rendering) {
  try {
    const common_chat_params &params = rendering->params;
    common_json result = common_json::object();
    result["prompt"] = params.prompt;
    result["format"] = std::string(common_chat_format_name(params.format));
    result["grammar"] = params.grammar;
    result["grammar_lazy"] = params.grammar_lazy;
    common_json triggers = common_json::array();
    for (const auto &trigger : params.grammar_triggers) {
      common_json item = common_json::object();
      item["type"] = std::string(trigger_type_name(trigger.type));
      item["value"] = trigger.value;
      item["token"] = static_cast<int64_t>(trigger.token);
      triggers.push_back(item);
    }
    result["grammar_triggers"] = triggers;
    result["preserved_tokens"] = string_array(params.preserved_tokens);
    result["additional_stops"] = string_array(params.additional_stops);
    result["generation_prompt"] = params.generation_prompt;
    result["supports_thinking"] = params.supports_thinking;
    return copy_string(result.dump());
  } catch (...) {
    return nullptr;
  }
}

char *hybridai_chat_parse(const hybridai_chat_rendering *rendering, const char *text, bool is_partial, char **error) {
  try {
    const common_chat_msg message = common_chat_parse(text, is_partial, rendering->parser);
    return copy_string(message.to_json_oaicompat().dump());
  } catch (const std::exception &exception) {
    report(error, exception.what());
  } catch (...) {
    report(error, "unknown C++ exception");
  }
  return nullptr;
}

void hybridai_chat_set_log_verbosity(int level) { common_log_set_verbosity_thold(level); }

void hybridai_chat_string_free(char *string) { std::free(string); }

}  // extern "C"
