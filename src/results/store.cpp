// The store: one SQL code path over either engine.
#include "results/columns.hpp"

#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <cstdlib>

namespace trainbench::results {

namespace detail {
namespace {

class SqlStore final : public Store {
public:
    explicit SqlStore(std::unique_ptr<Database> db) : m_db(std::move(db)) { migrate(*m_db); }

    std::string describe() const override { return m_db->describe(); }
    int schema_version() override { return detail::schema_version(*m_db); }

    bool record(const Result& r) override {
        std::vector<Value> values;
        for (const Column& c : result_columns()) values.push_back(c.get(r));
        return in_transaction(*m_db, [&] {
            if (!m_db->exec("SELECT 1 FROM results WHERE result_id = $1", {r.result_id}).empty()) return false;
            (void)m_db->exec(fmt::format("INSERT INTO results ({}) VALUES ({})", column_list(), placeholder_list()),
                             values);
            std::int64_t ordinal = 0;
            for (const analysis::StepSample& s : r.window_steps)
                (void)m_db->exec("INSERT INTO step_times (result_id, ordinal, step, seconds) VALUES ($1, $2, $3, $4)",
                                 {r.result_id, ordinal++, s.step, s.seconds});
            return true;
        });
    }

    std::vector<Result> history(const HistoryFilter& f) override {
        return select(
            "WHERE ($1 = '' OR recipe_name = $1) AND ($2 = '' OR target = $2) AND ($3 = '' OR model = $3) "
            "ORDER BY ran_at, recorded_at, result_id",
            {f.name, f.target, f.model});
    }

    Result find_run(const std::string& ref) override {
        // Run ids end in 6 hex digits: a short id prefix matches inside the id, after the last '-'.
        std::vector<Result> all = select("WHERE run_id = $1 OR run_id LIKE $2 OR run_id LIKE $3 ORDER BY recorded_at",
                                         {ref, ref + "%", "%-" + ref + "%"});
        std::vector<std::string> ids;
        for (const Result& r : all)
            if (r.run_id == ref) return latest_of(all, ref);
        for (const Result& r : all)
            if ((r.run_id.rfind(ref, 0) == 0 || r.short_id().rfind(ref, 0) == 0) &&
                std::find(ids.begin(), ids.end(), r.run_id) == ids.end())
                ids.push_back(r.run_id);
        if (ids.size() == 1) return latest_of(all, ids.front());
        if (ids.empty())
            throw UsageError(fmt::format("no result for run '{}' in {}", ref, describe()),
                             "'trainbench history' lists the recorded runs; 'trainbench report RUN' records one");
        throw UsageError(fmt::format("'{}' matches several recorded runs: {}", ref, quoted_list(ids, " and ")),
                         "give more of the run id");
    }

    void tag(const std::string& run_id, const std::string& tag) override {
        in_transaction(*m_db, [&] {
            (void)m_db->exec(
                "INSERT INTO tags (run_id, tag, tagged_at) VALUES ($1, $2, $3) ON CONFLICT (run_id, tag) DO NOTHING",
                {run_id, tag, utc_now(false)});
        });
    }

private:
    static Result latest_of(const std::vector<Result>& all, const std::string& run_id) {
        const Result* best = nullptr;
        for (const Result& r : all)
            if (r.run_id == run_id) best = &r;  // ordered by recorded_at
        return *best;
    }

    std::vector<Result> select(const std::string& where, const std::vector<Value>& params) {
        std::vector<Result> out;
        const auto& columns = result_columns();
        for (const Row& row : m_db->exec(fmt::format("SELECT {} FROM results {}", column_list(), where), params)) {
            Result r;
            for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i) columns[i].set(r, row[i]);
            out.push_back(std::move(r));
        }
        for (Result& r : out) {
            for (const Row& row : m_db->exec(
                     "SELECT step, seconds FROM step_times WHERE result_id = $1 ORDER BY ordinal", {r.result_id}))
                r.window_steps.push_back({std::stoll(row.at(0).value_or("0")), std::stod(row.at(1).value_or("0"))});
            for (const Row& row : m_db->exec("SELECT tag FROM tags WHERE run_id = $1 ORDER BY tag", {r.run_id}))
                r.tags.push_back(row.at(0).value_or(""));
        }
        return out;
    }

    std::unique_ptr<Database> m_db;
};

bool starts_with(const std::string& s, std::string_view prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace
}  // namespace detail

std::unique_ptr<Store> open_store(const std::string& location) {
    using detail::starts_with;
    if (starts_with(location, "postgresql://") || starts_with(location, "postgres://"))
        return std::make_unique<detail::SqlStore>(detail::open_postgresql(location));
    std::string path = starts_with(location, "sqlite:") ? location.substr(7) : location;
    if (path.empty()) throw UsageError("empty results database location", "give a file path or postgresql://...");
    return std::make_unique<detail::SqlStore>(detail::open_sqlite(path));
}

std::string default_location(const std::string& flag, const std::filesystem::path& runs_root) {
    if (!flag.empty()) return flag;
    if (const char* env = std::getenv("TRAINBENCH_RESULTS"); env && *env) return env;
    return (runs_root / "results.sqlite").string();
}

std::string Result::short_id() const {
    return run_id.size() > 6 ? run_id.substr(run_id.size() - 6) : run_id;
}

}  // namespace trainbench::results
