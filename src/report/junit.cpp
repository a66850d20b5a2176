// The one JUnit writer: run expectations, the cluster validation and the regression
// verdict are all test suites written here.
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report {

namespace {

std::size_t failures(const TestSuite& s) {
    std::size_t n = 0;
    for (const TestCase& c : s.cases) n += c.passed ? 0 : 1;
    return n;
}

std::string testcase(const TestCase& c) {
    std::string out =
        fmt::format("    <testcase name=\"{}\" classname=\"{}\"", html_escape(c.name), html_escape(c.classname));
    if (c.passed && c.text.empty()) return out + "/>\n";
    out += ">\n";
    if (c.passed) {
        out += fmt::format("      <system-out>{}</system-out>\n", html_escape(c.text));
    } else {
        out += fmt::format("      <failure message=\"{}\"", html_escape(c.message));
        if (!c.type.empty()) out += fmt::format(" type=\"{}\"", html_escape(c.type));
        out += c.text.empty() ? "/>\n" : fmt::format(">{}</failure>\n", html_escape(c.text));
    }
    return out + "    </testcase>\n";
}

}  // namespace

namespace detail {

std::string junit_suite(const TestSuite& s) {
    std::string out = fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                                  html_escape(s.name), s.cases.size(), failures(s));
    if (!s.properties.empty()) {
        out += "    <properties>\n";
        for (const auto& [name, value] : s.properties)
            out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", html_escape(name), html_escape(value));
        out += "    </properties>\n";
    }
    for (const TestCase& c : s.cases) out += testcase(c);
    return out + "  </testsuite>\n";
}

}  // namespace detail

std::string junit_xml(const std::string& name, const std::vector<TestSuite>& suites) {
    std::size_t tests = 0, failed = 0;
    for (const TestSuite& s : suites) {
        tests += s.cases.size();
        failed += failures(s);
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\">\n", html_escape(name), tests, failed);
    for (const TestSuite& s : suites) out += detail::junit_suite(s);
    return out + "</testsuites>\n";
}

}  // namespace trainbench::report
