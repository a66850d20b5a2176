// The Slurm backend: sbatch --parsable, squeue (one call for every tracked
// job), scontrol show job for jobs that just ended, sacct when accounting is
// enabled, the job's status files when it is not, and scancel. Transient
// controller errors are retried with bounded exponential backoff.
#include "backend/common.hpp"
#include "backend/parsers.hpp"

#include <trainbench/backend.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace fs = std::filesystem;

namespace trainbench::backend {

namespace slurm {

namespace {
bool is_job_id(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string na_to_empty(std::string s) {
    if (s == "N/A" || s == "None" || s == "(null)" || s == "Unknown") return {};
    return s;
}
}  // namespace

std::optional<std::string> parse_sbatch_output(std::string_view out) {
    for (const std::string& line : lines_of(out)) {
        std::string id = line.substr(0, line.find(';'));
        if (is_job_id(id)) return id;
    }
    return std::nullopt;
}

std::vector<JobStatus> parse_squeue(std::string_view out) {
    std::vector<JobStatus> rows;
    for (const std::string& line : lines_of(out)) {
        std::vector<std::string> f = split(line, '|');
        if (f.size() < 2 || !is_job_id(f[0])) continue;
        JobStatus s;
        s.job_id = f[0];
        s.state = parse_job_state(f[1]).value_or(JobState::unknown);
        if (f.size() > 2) s.reason = na_to_empty(f[2]);
        if (f.size() > 3) s.nodes = na_to_empty(f[3]);
        if (f.size() > 4 && s.state != JobState::pending) s.started = na_to_empty(f[4]);
        if (f.size() > 5 && is_final(s.state)) s.ended = na_to_empty(f[5]);
        s.source = "squeue";
        rows.push_back(std::move(s));
    }
    return rows;
}

std::map<std::string, std::string> parse_scontrol_fields(std::string_view out) {
    // Whitespace-separated Key=Value tokens; a value runs to the next token that
    // looks like "Key=" (values such as "Command=/path/with spaces" are rare and
    // only lose their tail).
    std::map<std::string, std::string> fields;
    std::size_t i = 0;
    while (i < out.size()) {
        while (i < out.size() && std::isspace(static_cast<unsigned char>(out[i]))) ++i;
        std::size_t start = i;
        while (i < out.size() && !std::isspace(static_cast<unsigned char>(out[i]))) ++i;
        std::string_view token = out.substr(start, i - start);
        std::size_t eq = token.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        fields.emplace(std::string(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    }
    return fields;
}

std::optional<JobStatus> parse_scontrol_job(std::string_view out) {
    auto f = parse_scontrol_fields(out);
    auto get = [&](const char* key) -> std::string {
        auto it = f.find(key);
        return it == f.end() ? std::string{} : it->second;
    };
    if (get("JobId").empty()) return std::nullopt;
    JobStatus s;
    s.job_id = get("JobId");
    s.state = parse_job_state(get("JobState")).value_or(JobState::unknown);
    s.reason = na_to_empty(get("Reason"));
    s.nodes = na_to_empty(get("NodeList"));
    if (s.state != JobState::pending) s.started = na_to_empty(get("StartTime"));
    if (is_final(s.state)) {
        s.ended = na_to_empty(get("EndTime"));
        s.exit_code = parse_exit_code(get("ExitCode"));
    }
    s.source = "scontrol";
    return s;
}

std::vector<JobStatus> parse_sacct(std::string_view out) {
    std::vector<JobStatus> rows;
    for (const std::string& line : lines_of(out)) {
        std::vector<std::string> f = split(line, '|');
        if (f.size() < 3 || !is_job_id(f[0])) continue;  // skips steps ("123.batch") too
        JobStatus s;
        s.job_id = f[0];
        s.state = parse_job_state(f[1]).value_or(JobState::unknown);
        if (is_final(s.state)) s.exit_code = parse_exit_code(f[2]);
        if (f.size() > 3) s.nodes = na_to_empty(f[3]);
        if (f.size() > 4) s.started = na_to_empty(f[4]);
        if (f.size() > 5 && is_final(s.state)) s.ended = na_to_empty(f[5]);
        s.source = "sacct";
        rows.push_back(std::move(s));
    }
    return rows;
}

std::optional<int> parse_exit_code(std::string_view text) {
    std::string t(trim(text));
    if (t.empty()) return std::nullopt;
    std::size_t colon = t.find(':');
    try {
        int code = std::stoi(t.substr(0, colon));
        if (colon != std::string::npos) {
            int sig = std::stoi(t.substr(colon + 1));
            if (sig != 0 && code == 0) return 128 + sig;
        }
        return code;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool is_transient_error(std::string_view stderr_text) {
    static const char* const patterns[] = {
        "socket timed out",
        "temporarily unable",
        "unable to contact slurm controller",
        "resource temporarily unavailable",
        "zero bytes were transmitted or received",
        "communication connection failure",
        "connection refused",
        "slurm_receive_msg",
        "slurmctld is busy",
        "try again",
    };
    std::string text = lower(stderr_text);
    return std::any_of(std::begin(patterns), std::end(patterns),
                       [&](const char* p) { return text.find(p) != std::string::npos; });
}

}  // namespace slurm

namespace {

constexpr const char* k_squeue_format = "%i|%T|%r|%N|%S|%e|%j";
constexpr std::size_t k_squeue_name_field = 6;
constexpr const char* k_sacct_fields = "JobID,State,ExitCode,NodeList,Start,End,JobName";
constexpr std::size_t k_sacct_name_field = 6;

bool transient(const ProcessResult& r) {
    return slurm::is_transient_error(r.err);
}

bool invalid_job_id(const ProcessResult& r) {
    return r.err.find("Invalid job id") != std::string::npos;
}

std::string join_ids(const std::vector<std::string>& ids) {
    std::string s;
    for (const std::string& id : ids) s += (s.empty() ? "" : ",") + id;
    return s;
}

struct FoundExisting {
    std::string job_id;
};

// Job id -> job name from squeue/sacct lines whose name is field `at` (a name may hold '|').
void collect_names(std::string_view out, std::size_t at, std::map<std::string, std::string>& names) {
    for (const std::string& line : lines_of(out)) {
        std::vector<std::string> f = split(line, '|');
        if (f.size() <= at) continue;
        std::string name = f[at];
        for (std::size_t i = at + 1; i < f.size(); ++i) name += "|" + f[i];
        names[f[0]] = name;
    }
}

// The scheduler names this id's job otherwise: it is another job, not the run's.
bool foreign(const JobQuery& q, const std::map<std::string, std::string>& names) {
    auto it = names.find(q.job_id);
    return !q.job_name.empty() && it != names.end() && it->second != q.job_name;
}

// What a run knows of its job when the id now names another job: its status files, and why.
JobStatus not_this_job(const JobQuery& q, const std::string& other_name) {
    JobStatus s = status_from_files(q.run_dir, q.stage, q.job_id);
    if (!is_final(s.state)) {
        s.state = JobState::unknown;
        s.reason = fmt::format("Slurm job {} is '{}', not this run's '{}'", q.job_id, other_name, q.job_name);
    }
    return s;
}

class SlurmBackend final : public Backend {
public:
    explicit SlurmBackend(const BackendOptions& options) : m_run(options) {}

    std::string_view name() const override { return "slurm"; }

    SubmitResult submit(const SubmitRequest& request) override {
        std::error_code ec;
        fs::create_directories(request.run_dir / "logs" / request.stage, ec);
        fs::create_directories(request.run_dir / "status", ec);
        ProcessRequest p;
        p.argv = {"sbatch", "--parsable", "--job-name=" + request.job_name};
        if (request.depends_on) {
            p.argv.push_back(fmt::format("--dependency={}:{}", request.dependency, *request.depends_on));
            // A dependency that can never be met cancels the job instead of leaving it pending forever.
            p.argv.emplace_back("--kill-on-invalid-dep=yes");
        }
        p.argv.push_back((request.stage_dir / request.entrypoint).string());
        p.cwd = request.run_dir;
        p.env_set = request.env;
        ProcessResult r;
        try {
            r = m_run.run_with_retry(p, transient, [&] {
                // A timed-out sbatch may still have reached the controller: never submit twice.
                std::vector<FoundJob> found =
                    find_jobs(request.job_name, {{}, request.run_dir, request.stage, request.job_name});
                if (!found.empty()) throw FoundExisting{found.front().job_id};
            });
        } catch (const FoundExisting& e) {
            return {e.job_id, "found after a transient sbatch error"};
        }
        if (!r.ok()) {
            throw RuntimeError(
                fmt::format("sbatch refused stage '{}': {}", request.stage, slurm_message(r)),
                slurm::is_transient_error(r.err) ? "the Slurm controller did not answer; try again later" : "");
        }
        std::optional<std::string> id = slurm::parse_sbatch_output(r.out);
        if (!id) throw RuntimeError(fmt::format("sbatch printed no job id: '{}'", trim(r.out)));
        return {*id, std::string(trim(r.err))};
    }

    std::vector<JobStatus> status(const std::vector<JobQuery>& jobs) override {
        std::vector<std::string> ids;
        for (const JobQuery& q : jobs)
            if (!q.job_id.empty() && std::find(ids.begin(), ids.end(), q.job_id) == ids.end()) ids.push_back(q.job_id);
        std::map<std::string, JobStatus> known;
        std::map<std::string, std::string> names;  // as the scheduler names each id's job
        if (!ids.empty()) {
            ProcessResult r = m_run.run_with_retry(
                command({"squeue", "-h", "--states=all", "-j", join_ids(ids), "-o", k_squeue_format}), transient);
            if (r.ok()) {
                for (JobStatus& s : slurm::parse_squeue(r.out)) known[s.job_id] = std::move(s);
                collect_names(r.out, k_squeue_name_field, names);
            } else if (!invalid_job_id(r)) {
                throw RuntimeError(fmt::format("cannot query Slurm: {}", slurm_message(r)),
                                   "is the controller up? ('scontrol ping')");
            }
        }
        // Jobs that ended: the exit code and reason from scontrol.
        for (auto& [id, s] : known) {
            if (!is_final(s.state)) continue;
            ProcessResult r = m_run.run(command({"scontrol", "-o", "show", "job", id}));
            if (!r.ok()) continue;
            if (std::optional<JobStatus> detail = slurm::parse_scontrol_job(r.out); detail && detail->job_id == id) {
                detail->source = "squeue+scontrol";
                if (detail->state == JobState::unknown) detail->state = s.state;
                s = *detail;
            }
        }
        std::vector<std::string> missing;
        for (const std::string& id : ids)
            if (!known.count(id)) missing.push_back(id);
        if (!missing.empty() && accounting_enabled()) {
            ProcessResult r = m_run.run_with_retry(
                command({"sacct", "-n", "-P", "-X", "-j", join_ids(missing), "-o", k_sacct_fields}), transient);
            if (r.ok()) {
                for (JobStatus& s : slurm::parse_sacct(r.out)) known[s.job_id] = std::move(s);
                collect_names(r.out, k_sacct_name_field, names);
            }
        }
        std::vector<JobStatus> result;
        for (const JobQuery& q : jobs) {
            auto it = known.find(q.job_id);
            if (foreign(q, names)) {
                result.push_back(not_this_job(q, names.at(q.job_id)));
            } else if (it != known.end()) {
                JobStatus s = it->second;
                // The job script's own record of the training command's exit status
                // wins over the batch script's (they differ when the trap reports it).
                if (is_final(s.state) && !s.exit_code)
                    s.exit_code = status_from_files(q.run_dir, q.stage, q.job_id).exit_code;
                result.push_back(std::move(s));
            } else {
                result.push_back(status_from_files(q.run_dir, q.stage, q.job_id));
            }
        }
        return result;
    }

    // Jobs with a journaled name: one `scancel --name=NAME ID` each, after squeue confirmed the name
    // (the controller applies the name as a filter too, so a job renamed in between is left alone).
    // Jobs without one (journals from before names were kept): one scancel for all.
    void cancel(const std::vector<JobQuery>& jobs) override {
        std::vector<std::vector<std::string>> commands;
        std::vector<std::string> unnamed = {"scancel"};
        for (const JobQuery* q : own_live_jobs(jobs)) {
            if (q->job_name.empty())
                unnamed.push_back(q->job_id);
            else
                commands.push_back({"scancel", "--name=" + q->job_name, q->job_id});
        }
        if (unnamed.size() > 1) commands.push_back(unnamed);
        for (const std::vector<std::string>& argv : commands) {
            ProcessResult r = m_run.run_with_retry(command(argv), transient);
            if (!r.ok() && !invalid_job_id(r) && r.err.find("already complet") == std::string::npos)
                throw RuntimeError(fmt::format("scancel failed: {}", slurm_message(r)));
        }
    }

    std::vector<fs::path> logs(const JobQuery& job) override {
        std::vector<fs::path> files = stage_log_files(job);
        std::error_code ec;
        // Scripts without an --output directive leave slurm-<id>.out in the run directory.
        fs::path fallback = job.run_dir / fmt::format("slurm-{}.out", job.job_id);
        if (!job.job_id.empty() && fs::exists(fallback, ec)) files.push_back(fallback);
        std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
            std::error_code e1, e2;
            return fs::last_write_time(a, e1) < fs::last_write_time(b, e2);
        });
        return files;
    }

    std::vector<FoundJob> find_jobs(const std::string& job_name, const JobQuery&) override {
        std::vector<FoundJob> found;
        ProcessResult r =
            m_run.run_with_retry(command({"squeue", "-h", "--states=all", "-n", job_name, "-o", "%i|%j"}), transient);
        if (!r.ok()) throw RuntimeError(fmt::format("cannot query Slurm: {}", slurm_message(r)));
        for (const std::string& line : lines_of(r.out)) {
            std::vector<std::string> f = split(line, '|');
            if (f.size() >= 2 && f[1] == job_name) found.push_back({f[0], f[1]});
        }
        if (found.empty() && accounting_enabled()) {
            ProcessResult a =
                m_run.run(command({"sacct", "-n", "-P", "-X", "--name", job_name, "-o", "JobID,JobName"}));
            for (const std::string& line : lines_of(a.out)) {
                std::vector<std::string> f = split(line, '|');
                if (f.size() >= 2 && f[1] == job_name) found.push_back({f[0], f[1]});
            }
        }
        return found;
    }

private:
    // The jobs that squeue names as the run's own (by job name), before any scancel: an id that
    // names another job is left alone (a warning), one squeue no longer knows has ended. Jobs
    // without a journaled name are taken as they are.
    std::vector<const JobQuery*> own_live_jobs(const std::vector<JobQuery>& jobs) {
        std::vector<const JobQuery*> own;
        std::vector<std::string> checked;
        for (const JobQuery& q : jobs) {
            if (q.job_id.empty()) continue;
            if (q.job_name.empty())
                own.push_back(&q);
            else
                checked.push_back(q.job_id);
        }
        if (checked.empty()) return own;
        ProcessResult r = m_run.run_with_retry(
            command({"squeue", "-h", "--states=all", "-j", join_ids(checked), "-o", "%i|%j"}), transient);
        if (!r.ok() && !invalid_job_id(r))
            throw RuntimeError(fmt::format("cannot ask Slurm which jobs to cancel: {}", slurm_message(r)),
                               "is the controller up? ('scontrol ping')");
        std::map<std::string, std::string> names;
        if (r.ok()) collect_names(r.out, 1, names);
        for (const JobQuery& q : jobs) {
            if (q.job_id.empty() || q.job_name.empty()) continue;
            auto it = names.find(q.job_id);
            if (it == names.end()) continue;  // ended and forgotten: nothing to cancel
            if (it->second == q.job_name)
                own.push_back(&q);
            else
                spdlog::warn("not cancelling Slurm job {}: it is '{}', not this run's '{}'", q.job_id,
                             terminal_safe(it->second), q.job_name);
        }
        return own;
    }

    static std::string slurm_message(const ProcessResult& r) {
        // "sbatch: error: Batch job submission failed: Invalid partition name specified"
        std::vector<std::string> ls = lines_of(r.err);
        std::string last;
        for (const std::string& l : ls)
            if (l.find("error") != std::string::npos) last = l;
        if (last.empty()) return first_error_line(r);
        return last;
    }

    bool accounting_enabled() {
        if (!m_accounting) {
            ProcessResult r = m_run.run(command({"scontrol", "show", "config"}));
            bool enabled = false;
            if (r.ok()) {
                for (const std::string& line : lines_of(r.out)) {
                    if (line.rfind("AccountingStorageType", 0) != 0) continue;
                    enabled = line.find("accounting_storage/none") == std::string::npos &&
                              line.find("accounting_storage/") != std::string::npos;
                }
            }
            m_accounting = enabled;
            spdlog::debug("slurm accounting {}", enabled ? "enabled" : "disabled");
        }
        return *m_accounting;
    }

    Runner m_run;
    std::optional<bool> m_accounting;
};

}  // namespace

std::unique_ptr<Backend> make_slurm_backend(const BackendOptions& options) {
    return std::make_unique<SlurmBackend>(options);
}

}  // namespace trainbench::backend
