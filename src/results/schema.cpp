// The schema and its forward migrations. Each version is a list of
// statements run in one write transaction that also records the version, so
// an interrupted migration leaves the previous version intact. A database
// written by a newer trainbench is refused, never downgraded.
#include "results/columns.hpp"

#include <trainbench/core.hpp>
#include <trainbench/results.hpp>

#include <fmt/format.h>

namespace trainbench::results::detail {

namespace {

// migrations()[i] brings the schema from version i to i + 1 (docs/results.md).
const std::vector<std::vector<std::string>>& migrations() {
    static const std::vector<std::vector<std::string>> steps = {
        {
            R"(CREATE TABLE results (
  result_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  ran_at TEXT NOT NULL,
  host TEXT NOT NULL,
  run_dir TEXT NOT NULL,
  source TEXT NOT NULL,
  recipe_name TEXT NOT NULL,
  recipe_hash TEXT NOT NULL,
  target TEXT NOT NULL,
  model TEXT NOT NULL,
  gpu TEXT NOT NULL,
  nodes INTEGER NOT NULL,
  gpus INTEGER NOT NULL,
  tensor_parallel INTEGER NOT NULL,
  pipeline_parallel INTEGER NOT NULL,
  global_batch INTEGER NOT NULL,
  seq_len INTEGER NOT NULL,
  precision TEXT NOT NULL,
  framework TEXT NOT NULL,
  framework_version TEXT NOT NULL,
  container TEXT NOT NULL,
  convention TEXT NOT NULL,
  peak_tflops DOUBLE PRECISION NOT NULL,
  peak_source TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  window_end BIGINT NOT NULL,
  step_count INTEGER NOT NULL,
  step_time_mean DOUBLE PRECISION NOT NULL,
  step_time_median DOUBLE PRECISION NOT NULL,
  step_time_p10 DOUBLE PRECISION NOT NULL,
  step_time_p90 DOUBLE PRECISION NOT NULL,
  step_time_stddev DOUBLE PRECISION NOT NULL,
  tokens_per_s DOUBLE PRECISION NOT NULL,
  tflops_per_gpu DOUBLE PRECISION NOT NULL,
  mfu DOUBLE PRECISION NOT NULL,
  final_loss DOUBLE PRECISION,
  log_format TEXT NOT NULL,
  tool_version TEXT NOT NULL
))",
            R"(CREATE TABLE step_times (
  result_id TEXT NOT NULL REFERENCES results (result_id),
  ordinal INTEGER NOT NULL,
  step BIGINT NOT NULL,
  seconds DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (result_id, ordinal)
))",
            R"(CREATE TABLE tags (
  run_id TEXT NOT NULL,
  tag TEXT NOT NULL,
  tagged_at TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
))",
            "CREATE INDEX results_by_recipe ON results (recipe_name, target, ran_at)",
            "CREATE INDEX results_by_run ON results (run_id)",
        },
    };
    return steps;
}

}  // namespace

int schema_version(Database& db) {
    auto rows = db.exec("SELECT max(version) FROM trainbench_schema");
    if (rows.empty() || rows.front().empty() || !rows.front().front()) return 0;
    try {
        return static_cast<int>(parse_int(*rows.front().front()));
    } catch (const BadValue&) {
        throw RuntimeError(fmt::format("the results database '{}' has no valid schema version ('{}')", db.describe(),
                                       terminal_safe(*rows.front().front())));
    }
}

namespace {

void refuse_newer(Database& db, int have) {
    if (have > k_schema_version)
        throw RuntimeError(
            fmt::format("the results database '{}' has schema version {}; this trainbench knows up to {}",
                        db.describe(), have, k_schema_version),
            "upgrade trainbench to read it");
}

}  // namespace

void migrate(Database& db) {
    const auto& steps = migrations();
    static_assert(k_schema_version >= 1);
    if (steps.size() != static_cast<std::size_t>(k_schema_version))
        throw std::logic_error("results: one migration per schema version");
    // A current database is only read: no lock, and a read-only one can be opened.
    if (db.has_table("trainbench_schema")) {
        const int have = schema_version(db);
        refuse_newer(db, have);
        if (have == k_schema_version) return;
    }
    while (true) {
        const bool done = in_transaction(db, [&] {
            // Under the writer lock, the schema table too: two first users of a fresh PostgreSQL
            // database would otherwise both create it, and one fail on pg_type's unique index.
            (void)db.exec(
                "CREATE TABLE IF NOT EXISTS trainbench_schema (version INTEGER NOT NULL, applied_at TEXT NOT NULL)");
            const int have = schema_version(db);  // read under the writer lock: another process may have migrated
            refuse_newer(db, have);
            if (have == k_schema_version) return true;
            for (const std::string& sql : steps[static_cast<std::size_t>(have)]) (void)db.exec(sql);
            (void)db.exec("INSERT INTO trainbench_schema (version, applied_at) VALUES ($1, $2)",
                          {static_cast<std::int64_t>(have + 1), utc_now()});
            return false;
        });
        if (done) return;
    }
}

}  // namespace trainbench::results::detail
