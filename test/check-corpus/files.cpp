// File operations in callback style.
#include "corpus.h"

using namespace corpus;

void copy_file(std::string from, std::string to, callback<> done) {
  read_file(from, [=](error err, std::string data) {
    if (err)
      return done(err);
    write_file(to, data, done);
  });
}

// Forgets the `return` after reporting the failure.
void append_line(std::string path, std::string line, callback<> done) {
  read_file(path, [=](error err, std::string data) {
    if (err)
      done(err);
    write_file(path, data + line + "\n", done); // expect: asyncshift-callback-called-twice
  });
}

// Copies only when the source is newer.
void copy_if_newer(std::string from, std::string to, callback<bool> done) {
  stat_file(from, [=](error err, std::int64_t from_time) {
    if (err)
      return done(err);
    stat_file(to, [=](error err, std::int64_t to_time) {
      if (err || to_time >= from_time)
        return done(err, false);
      copy_file(from, to, [=](error err) { done(err, !err); });
    });
  });
}

// The backup's outcome is never looked at.
void backup(std::string path, callback<> done) {
  copy_file(path, path + ".bak", [=](error err) { // expect: asyncshift-error-ignored
    log("backed up " + path);
    done({});
  });
}

// Removes every file, one after another.
void remove_all(std::vector<std::string> paths, callback<> done) {
  asyncshift::each_series(
      paths.size(), [=](std::size_t i, callback<> next) { remove_file(paths[i], next); }, done);
}

// Reads every file at once and joins by hand.
void read_all(std::vector<std::string> paths, callback<std::vector<std::string>> done) {
  stat_file(".", [=](error err, std::int64_t) {
    if (err || paths.empty())
      return done(err, {});
    auto results = std::make_shared<std::vector<std::string>>(paths.size());
    auto left = std::make_shared<std::size_t>(paths.size());
    auto failed = std::make_shared<bool>(false);
    for (std::size_t i = 0; i < paths.size(); ++i)
      read_file(paths[i], [=](error err, std::string data) {
        if (*failed)
          return;
        if (err) {
          *failed = true;
          return done(err);
        }
        (*results)[i] = data;
        if (--*left == 0)
          done({}, *results);
      });
  });
}

// Only handles the file being there.
void read_config(std::string path, callback<std::string> done) {
  stat_file(path, [=](error err, std::int64_t size) { // expect: asyncshift-callback-not-called
    if (!err && size > 0)
      read_file(path, done);
    else if (err)
      done(err);
  });
}
