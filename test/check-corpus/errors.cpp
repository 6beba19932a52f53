// Error handling: what counts as looking at the error.
#include "corpus.h"

using namespace corpus;

bool is_transient(const error &e) { return e.message().find("timeout") != std::string::npos; }

// Reads the error through a helper and in a log line.
void fetch_logged(std::string url, callback<std::string> done) {
  http_get(url, [=](error err, std::string body) {
    if (is_transient(err))
      log("transient: " + err.message());
    done(err, body);
  });
}

// An inner continuation shadows the outer error and never reads its own.
void fetch_and_store(std::string url, callback<> done) {
  http_get(url, [=](error err, std::string body) {
    if (err)
      return done(err);
    write_file("page.html", body, [=](error err) { done({}); }); // expect: asyncshift-error-ignored
  });
}

// Unnamed: the result of the notification does not matter.
void notify_and_finish(callback<> done) {
  http_get("http://notify/", [](error, std::string) {});
  done({});
}

// Named but unused in a fire-and-forget call.
void notify_named(callback<> done) {
  http_get("http://notify/", [](error err, std::string body) { log(body); }); // expect: asyncshift-error-ignored
  done({});
}

// A cancelled operation fails with its own error: the original is superseded.
void fetch_unless_cancelled(std::string url, std::shared_ptr<bool> cancelled, callback<std::string> done) {
  http_get(url, [=](error err, std::string body) {
    if (*cancelled)
      return done(error("cancelled"));
    done(err, body);
  });
}

// Converts the error into a value for the caller.
void probe(std::string url, callback<bool> done) {
  http_get(url, [=](error err, std::string) { done({}, !err); });
}
