/*
 * flush-llama-log.c — preloaded into llama.cpp's command-line tools by HybridAI's tests
 * (LD_PRELOAD), so that everything a tool logged reaches its output before it exits.
 *
 * llama.cpp's tools write their answers through the `common` library's log, whose worker thread
 * writes queued messages to stdout and stderr. The log is deliberately never torn down, so a tool
 * that returns from main right after logging its last tokens can exit before the worker has
 * written them: on a loaded machine llama-mtmd-cli's answer then ends early. Pausing the log at
 * exit makes the worker write every queued message and stop (common_log_pause joins it).
 *
 * The two functions are C++ (common/log.h), called here by their Itanium-mangled names; they are
 * resolved at run time from libllama-common, which the tools load.
 */
extern void *_Z15common_log_mainv(void);                  /* common_log * common_log_main() */
extern void _Z16common_log_pauseP10common_log(void *log); /* void common_log_pause(common_log *) */

__attribute__((destructor)) static void flush_llama_log(void) {
  _Z16common_log_pauseP10common_log(_Z15common_log_mainv());
}
