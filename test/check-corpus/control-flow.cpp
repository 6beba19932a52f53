// Less common control flow around completions.
#include "corpus.h"

#include <cassert>

using namespace corpus;

enum class source { disk, network };

// Every enumerator is handled: there is no path past the switch.
void load_from(source s, std::string name, callback<std::string> done) {
  switch (s) {
  case source::disk:
    return read_file(name, done);
  case source::network:
    return http_get("http://" + name, done);
  }
}

// `do { ... } while (false)` with breaks to one completion.
void validate_then_write(std::string path, std::string data, callback<> done) {
  stat_file(path, [=](error err, std::int64_t size) {
    error problem;
    do {
      if (err) {
        problem = err;
        break;
      }
      if (size > 1 << 20) {
        problem = error("too big");
        break;
      }
      return write_file(path, data, done);
    } while (false);
    done(problem);
  });
}

// The same shape, but one break skips the completion.
void validate_then_append(std::string path, std::string data, callback<> done) {
  stat_file(path, [=](error err, std::int64_t size) { // expect: asyncshift-callback-not-called
    do {
      if (err)
        return done(err);
      if (size == 0)
        break;
      return write_file(path, data, done);
    } while (false);
    log("nothing to append to");
  });
}

// Scans until a match; the loop always ends in a completion.
void first_existing(std::vector<std::string> paths, callback<std::string> done) {
  stat_file(".", [=](error err, std::int64_t) {
    if (err)
      return done(err);
    std::size_t i = 0;
    while (true) {
      if (i == paths.size())
        return done(error("none exist"));
      if (!paths[i].empty())
        return read_file(paths[i], done);
      ++i;
    }
  });
}

// An assertion is not a path that returns.
void checked_read(std::string path, callback<std::string> done) {
  read_file(path, [=](error err, std::string data) {
    if (err)
      return done(err);
    assert(!data.empty() && "files are never empty");
    done({}, data);
  });
}

// A continuation built by a helper and a wrapped handler.
callback<> logged(std::string what, callback<> done) {
  return [=](error err) {
    log(what + (err ? " failed" : " ok"));
    done(err);
  };
}

void write_logged(std::string path, std::string data, callback<> done) { write_file(path, data, logged("write", done)); }

void read_doubled(std::string path, callback<std::size_t> done) {
  callback<std::string> wrapped = [done](error err, std::string data) { done(err, data.size() * 2); };
  read_file(path, wrapped);
}

// Else-if chains that all complete.
void classify(std::string url, callback<int> done) {
  http_get(url, [=](error err, std::string body) {
    if (err) {
      log(err.message());
      return done(err);
    } else if (body.empty()) {
      done({}, 0);
    } else if (body.size() < 100) {
      done({}, 1);
    } else {
      done({}, 2);
    }
  });
}

// A parse that throws inside the completion's argument is caught and reported.
void parse_remote(std::string url, callback<int> done) {
  http_get(url, [=](error err, std::string body) {
    if (err)
      return done(err);
    try {
      done({}, std::stoi(body));
    } catch (const std::exception &e) {
      done(error(e.what()));
    }
  });
}

// Continues the loop on an error instead of stopping: two completions.
void write_each(std::vector<std::string> paths, callback<> done) {
  stat_file(".", [=](error err, std::int64_t) {
    if (err || paths.empty())
      return done(err);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (paths[i].empty()) {
        done(error("empty path")); // expect: asyncshift-callback-called-twice
        continue;
      }
    }
    done({}); // expect: asyncshift-callback-called-twice
  });
}
