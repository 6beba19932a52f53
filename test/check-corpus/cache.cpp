// A read-through cache and its invalidation.
#include "corpus.h"

using namespace corpus;

class cache {
public:
  // Completes at once on a hit: callers cannot rely on ordering.
  void get(std::string key, callback<std::string> done) { // expect: asyncshift-mixed-sync-async
    if (auto it = entries_.find(key); it != entries_.end())
      return done({}, it->second);
    read_file(key, [this, key, done](error err, std::string value) {
      if (!err)
        entries_[key] = value;
      done(err, value);
    });
  }

  // The same, but a hit waits for the loop too.
  void get_deferred(std::string key, callback<std::string> done) {
    if (auto it = entries_.find(key); it != entries_.end()) {
      std::string value = it->second;
      return sleep_ms(0, [=](error err) { done(err, value); });
    }
    read_file(key, [this, key, done](error err, std::string value) {
      if (!err)
        entries_[key] = value;
      done(err, value);
    });
  }

  // The handler is optional.
  void invalidate(std::string key, callback<> done) {
    entries_.erase(key);
    if (!done)
      return;
    remove_file(key + ".cache", done);
  }

  // Refreshes every entry; the counter completes once.
  void refresh(callback<> done) {
    stat_file(".", [this, done](error err, std::int64_t) {
      if (err || entries_.empty())
        return done(err);
      auto left = std::make_shared<std::size_t>(entries_.size());
      auto first_error = std::make_shared<error>();
      for (auto &entry : entries_)
        read_file(entry.first, [this, key = entry.first, left, first_error, done](error err, std::string value) {
          if (err && !*first_error)
            *first_error = err;
          else if (!err)
            entries_[key] = value;
          if (--*left == 0)
            done(*first_error);
        });
    });
  }

  // Loads a key and then forgets to answer when the file is empty.
  void load(std::string key, callback<std::string> done) {
    read_file(key, [this, key, done](error err, std::string value) { // expect: asyncshift-callback-not-called
      if (err)
        return done(err);
      if (value.empty())
        return log("empty " + key);
      entries_[key] = value;
      done({}, value);
    });
  }

private:
  std::map<std::string, std::string> entries_;
};
