// HTTP helpers: retries, caching, races, fan-out.
#include "corpus.h"

using namespace corpus;

void fetch_json(std::string url, callback<std::string> done) {
  http_get(url, [=](error err, std::string body) {
    if (err)
      return done(err);
    if (body.empty() || body[0] != '{')
      return done(error("not json: " + url));
    done({}, body);
  });
}

// Retries with a growing delay (the recursive-lambda idiom).
void fetch_with_retry(std::string url, int attempts, callback<std::string> done) {
  auto attempt = [=](auto &self, int left, int delay) -> void {
    http_get(url, [=](error err, std::string body) {
      if (!err || left == 0)
        return done(err, body);
      sleep_ms(delay, [=](error) { self(self, left - 1, delay * 2); });
    });
  };
  attempt(attempt, attempts, 10);
}

// Fetches every url at once; results in order.
void fetch_all(std::vector<std::string> urls, callback<std::vector<std::string>> done) {
  asyncshift::parallel<std::string>(
      urls.size(), [=](std::size_t i, callback<std::string> cb) { fetch_json(urls[i], cb); },
      [=](error err, std::vector<std::string> bodies) {
        if (err)
          return done(err);
        done({}, bodies);
      });
}

// Whichever of the request and the timer finishes first wins.
void fetch_with_timeout(std::string url, int ms, callback<std::string> done) {
  auto settled = std::make_shared<bool>(false);
  http_get(url, [=](error err, std::string body) {
    if (*settled)
      return;
    *settled = true;
    done(err, body);
  });
  sleep_ms(ms, [=](error) {
    if (*settled)
      return;
    *settled = true;
    done(error("timeout: " + url));
  });
}

std::map<std::string, std::string> page_cache;

// A hit completes before the call returns, a miss after.
void fetch_cached(std::string url, callback<std::string> done) { // expect: asyncshift-mixed-sync-async
  auto hit = page_cache.find(url);
  if (hit != page_cache.end())
    return done({}, hit->second);
  http_get(url, [=](error err, std::string body) {
    if (!err)
      page_cache[url] = body;
    done(err, body);
  });
}

// Follows one redirect; forgets the case where there is none.
void follow_redirect(std::string url, callback<std::string> done) {
  http_get(url, [=](error err, std::string body) { // expect: asyncshift-callback-not-called
    if (err)
      return done(err);
    if (body.rfind("redirect:", 0) == 0)
      return http_get(body.substr(9), done);
    log("no redirect for " + url);
  });
}

// Two requests, each completing the same handler.
void fetch_both(std::string a, std::string b, callback<std::string> done) {
  http_get(a, [=](error err, std::string body) { done(err, body); });
  http_get(b, [=](error err, std::string body) { done(err, body); }); // expect: asyncshift-callback-called-twice
}
