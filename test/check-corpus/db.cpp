// Database access: transactions, named continuations, error paths.
#include "corpus.h"

using namespace corpus;

// doxbee-like: the file row may exist already; both arms meet in a named
// continuation.
void save_document(std::string name, std::string body, callback<std::int64_t> done) {
  exec("BEGIN", [=](error err) {
    if (err)
      return done(err);
    auto after_file = [=](error err, std::int64_t file_id) {
      if (err) {
        exec("ROLLBACK", [](error) {});
        return done(err);
      }
      exec("INSERT INTO versions VALUES (" + std::to_string(file_id) + ")", [=](error err) {
        if (err) {
          exec("ROLLBACK", [](error) {});
          return done(err);
        }
        exec("COMMIT", [=](error err) { done(err, file_id); });
      });
    };
    query("SELECT id FROM files WHERE name = '" + name + "'", [=](error err, std::vector<std::string> rows) {
      if (err)
        return after_file(err, 0);
      if (!rows.empty())
        return after_file({}, std::stoll(rows[0]));
      exec("INSERT INTO files VALUES ('" + name + "')", [=](error err) { after_file(err, 1); });
    });
  });
}

// Looks at the rows before the error: an error reads as "no user".
void find_user(std::string id, callback<bool> done) {
  query("SELECT 1 FROM users WHERE id = " + id, [=](error err, std::vector<std::string> rows) { // expect: asyncshift-error-ignored
    if (rows.empty())
      return done({}, false);
    if (err)
      return done(err);
    done({}, true);
  });
}

// Falls through from the update into the insert.
void upsert(std::string key, int mode, callback<> done) {
  query("SELECT 1 FROM kv WHERE k = '" + key + "'", [=](error err, std::vector<std::string> rows) {
    if (err)
      return done(err);
    switch (mode) {
    case 0:
      exec("UPDATE kv SET v = 1", done);
    case 1:
      exec("INSERT INTO kv VALUES (1)", done); // expect: asyncshift-callback-called-twice
      break;
    default:
      done(error("bad mode"));
    }
  });
}

// Gives up silently when the schema is current.
void migrate(int from, int to, callback<> done) {
  query("SELECT version FROM schema", [=](error err, std::vector<std::string> rows) { // expect: asyncshift-callback-not-called
    if (err)
      return done(err);
    if (from == to)
      return;
    exec("ALTER TABLE ...", done);
  });
}

// A named continuation reached from both arms, each exactly once.
void count_rows(std::string table, bool cached, callback<std::int64_t> done) {
  auto finish = [=](error err, std::int64_t n) {
    if (err)
      return done(err);
    log(table + ": " + std::to_string(n));
    done({}, n);
  };
  query("SELECT COUNT(*) FROM " + table, [=](error err, std::vector<std::string> rows) {
    if (err || rows.empty())
      return finish(err ? err : error("no rows"), 0);
    finish({}, std::stoll(rows[0]));
  });
}

// Reaches the join twice when the count is zero.
void count_nonempty(std::string table, callback<std::int64_t> done) {
  auto finish = [=](error err, std::int64_t n) { done(err, n); };
  query("SELECT COUNT(*) FROM " + table, [=](error err, std::vector<std::string> rows) {
    if (err)
      return finish(err, 0);
    if (rows.empty())
      finish(error("empty"), 0);
    finish({}, rows.size()); // expect: asyncshift-callback-called-twice
  });
}
