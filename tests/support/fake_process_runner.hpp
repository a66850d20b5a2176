// A FAKE ProcessRunner for tests: records every request and answers from a
// script of canned results (first matching rule with results left wins; the
// last result of a rule repeats). No scheduler is involved.
#pragma once

#include <trainbench/core.hpp>

#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace trainbench::testing {

class FakeProcessRunner final : public ProcessRunner {
public:
    // Answers commands whose argv[0..n) equals `prefix`.
    FakeProcessRunner& on(std::vector<std::string> prefix, ProcessResult result) {
        for (Rule& r : m_rules) {
            if (r.prefix == prefix) {
                r.results.push_back(std::move(result));
                return *this;
            }
        }
        m_rules.push_back({std::move(prefix), {std::move(result)}});
        return *this;
    }

    ProcessResult run(const ProcessRequest& request) override {
        requests.push_back(request);
        for (Rule& r : m_rules) {
            if (r.prefix.size() > request.argv.size()) continue;
            if (!std::equal(r.prefix.begin(), r.prefix.end(), request.argv.begin())) continue;
            ProcessResult res = r.results.front();
            if (r.results.size() > 1) r.results.pop_front();
            return res;
        }
        if (missing_program) throw RuntimeError("cannot run '" + request.argv.at(0) + "': No such file or directory");
        return {127, false, "", "fake: no rule for " + request.argv.at(0) + "\n"};
    }

    // The argv of every request whose argv[0] is `program`.
    std::vector<std::vector<std::string>> calls(const std::string& program) const {
        std::vector<std::vector<std::string>> out;
        for (const ProcessRequest& r : requests)
            if (!r.argv.empty() && r.argv[0] == program) out.push_back(r.argv);
        return out;
    }

    std::vector<ProcessRequest> requests;
    bool missing_program = false;

private:
    struct Rule {
        std::vector<std::string> prefix;
        std::deque<ProcessResult> results;
    };
    std::vector<Rule> m_rules;
};

inline ProcessResult ok(std::string out, std::string err = {}) {
    return {0, false, std::move(out), std::move(err)};
}
inline ProcessResult fail(int code, std::string err, std::string out = {}) {
    return {code, false, std::move(out), std::move(err)};
}

}  // namespace trainbench::testing
