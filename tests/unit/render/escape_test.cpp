// Escaping by output kind, proven by running what was rendered.
#include "render/escape.hpp"

#include "render/template_engine.hpp"
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using render_test::TempDir;

namespace {

const std::vector<std::string>& hostile_values() {
    static const std::vector<std::string> values = {
        "x\"; rm -rf / #",
        "$(touch /tmp/trainbench-pwned)",
        "`touch /tmp/trainbench-pwned`",
        "it's a 'quote'",
        "line one\nline two; touch /tmp/trainbench-pwned",
        "tab\there and \\ backslash and ${HOME} and $HOME",
        "",
        "--partition=evil",
        "a\r\nb",
        "\\'\"'\"",
    };
    return values;
}

}  // namespace

TEST(Escape, OutputKindFollowsTheTemplateExtension) {
    EXPECT_EQ(output_kind_for("slurm/job.sbatch"), OutputKind::shell);
    EXPECT_EQ(output_kind_for("local/run.sh"), OutputKind::shell);
    EXPECT_EQ(output_kind_for("kubernetes/manifests.yaml"), OutputKind::yaml);
    EXPECT_EQ(output_kind_for("helm/Chart.YML"), OutputKind::yaml);
    EXPECT_EQ(output_kind_for("helm/templates/_helpers.tpl"), OutputKind::text);
}

TEST(Escape, ShellEscapeKeepsControlCharactersOnOneLine) {
    EXPECT_EQ(shell_escape("plain-word_1.2"), "plain-word_1.2");
    EXPECT_EQ(shell_escape("a b"), "'a b'");
    EXPECT_EQ(shell_escape("a\nb"), "$'a\\nb'");
    EXPECT_EQ(shell_escape("it's\n"), "$'it\\'s\\n'");
    for (const std::string& v : hostile_values()) EXPECT_EQ(shell_escape(v).find('\n'), std::string::npos) << v;
}

TEST(Escape, HostileValuesRenderedIntoAScriptArriveByteExactAndExecuteNothing) {
    TempDir tmp;
    fs::path pwned = "/tmp/trainbench-pwned";
    fs::remove(pwned);
    TemplateEngine engine({render_test::shipped_templates()});
    nlohmann::ordered_json ctx = {{"values", nlohmann::ordered_json::array()}};
    for (const std::string& v : hostile_values()) ctx["values"].push_back({{"v", v}});
    // Each value lands in an argument, an assignment and a comment.
    std::string tmpl =
        "#!/bin/bash\nset -eu\n{{#values}}\n# comment {{v}}\nx={{v}}\nprintf '%s\\0' {{v}} \"$x\"\n{{/values}}\n";
    std::string script = engine.render_text(tmpl, "test.sh", OutputKind::shell, ctx);
    fs::path file = tmp.path() / "test.sh";
    write_file_atomic(file, script);
    ProcessResult r = render_test::run_bash(file, {}, tmp.path());
    ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << script;
    std::string expected;
    for (const std::string& v : hostile_values()) expected += v + '\0' + v + '\0';
    EXPECT_EQ(r.out, expected) << script;
    EXPECT_FALSE(fs::exists(pwned)) << "a hostile value executed";
}

TEST(Escape, HostileValuesInYamlRoundTripExactly) {
    TemplateEngine engine({render_test::shipped_templates()});
    nlohmann::ordered_json ctx = {{"values", nlohmann::ordered_json::array()}};
    for (const std::string& v : hostile_values()) ctx["values"].push_back({{"v", v}});
    std::string text =
        engine.render_text("items:\n{{#values}}\n  - key: {{v}}\n{{/values}}\n", "test.yaml", OutputKind::yaml, ctx);
    YAML::Node doc = YAML::Load(text);
    ASSERT_EQ(doc["items"].size(), hostile_values().size()) << text;
    for (std::size_t i = 0; i < hostile_values().size(); ++i)
        EXPECT_EQ(doc["items"][i]["key"].as<std::string>(), hostile_values()[i]) << text;
}

TEST(Escape, YamlBlockHoldsAScriptExactlyOrFallsBackToAQuotedScalar) {
    std::string script = "#!/bin/bash\necho \"hi\" # not: yaml\n\n  indented: line\n";
    std::string yaml = "data:\n  f: " + yaml_block(script, 4) + "\n";
    EXPECT_EQ(YAML::Load(yaml)["data"]["f"].as<std::string>(), script) << yaml;
    for (std::string odd : {std::string(" leading space\n"), std::string("no newline"), std::string("two\n\n"),
                            std::string("tab\tin\n")}) {
        std::string y = "f: " + yaml_block(odd, 2) + "\n";
        EXPECT_EQ(YAML::Load(y)["f"].as<std::string>(), odd) << y;
    }
}

TEST(Escape, DnsLabelsAreValidAndKeepTheRunId) {
    EXPECT_EQ(dns_label("trainbench-GPT3_175b.fp8-20261122T021823Z-abc123"),
              "trainbench-gpt3-175b-fp8-20261122t021823z-abc123");
    std::string long_name = std::string(100, 'a') + "-run42";
    std::string label = dns_label(long_name, 52);
    EXPECT_LE(label.size(), 52u);
    EXPECT_EQ(label.substr(label.size() - 6), "-run42");
    EXPECT_EQ(dns_label("---"), "trainbench");
}

TEST(Escape, EnvironmentValuesAndReferencesInARenderedJobRunInert) {
    TempDir tmp;
    fs::remove("/tmp/trainbench-pwned");
    recipe::Recipe r = render_test::local_recipe(
        {"bash", "-c", "printf '%s\\0' \"$HOSTILE_1\" \"$HOSTILE_2\" \"$FROM_SUBMITTER\" \"$1\"", "argv0",
         "$(touch /tmp/trainbench-pwned)\n`id`; x\"; rm -rf / #"});
    r.env = {{"HOSTILE_1", "x\"; rm -rf / #"},
             {"HOSTILE_2", "$(touch /tmp/trainbench-pwned)\nnext 'line'"},
             {"FROM_SUBMITTER", "${env:TB_TEST_SECRET}"}};
    RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    std::vector<RenderedJob> jobs = render::render(r, options);
    ASSERT_EQ(jobs.size(), 1u);
    const RenderedFile* script = nullptr;
    for (const RenderedFile& f : jobs[0].files)
        if (f.path == jobs[0].entrypoint) script = &f;
    ASSERT_NE(script, nullptr);
    EXPECT_EQ(script->content.find("s3cret-value"), std::string::npos);
    fs::path file = tmp.path() / "run.sh";
    write_file_atomic(file, script->content);
    ProcessResult res = render_test::run_bash(
        file, {{"TRAINBENCH_RUN_DIR", tmp.path().string()}, {"TB_TEST_SECRET", "s3cret-value $(id)"}}, tmp.path());
    ASSERT_EQ(res.exit_code, 0) << res.err << "\n" << script->content;
    std::string expected = std::string("x\"; rm -rf / #") + '\0' + "$(touch /tmp/trainbench-pwned)\nnext 'line'" +
                           '\0' + "s3cret-value $(id)" + '\0' +
                           "$(touch /tmp/trainbench-pwned)\n`id`; x\"; rm -rf / #" + '\0';
    EXPECT_EQ(res.out, expected);
    EXPECT_FALSE(fs::exists("/tmp/trainbench-pwned"));
    // The script recorded its own start and exit status.
    EXPECT_TRUE(fs::exists(tmp.path() / "status" / "train.started"));
    EXPECT_EQ(read_file(tmp.path() / "status" / "train.exit").substr(0, 2), "0 ");
}

TEST(Escape, AMissingSecretReferenceFailsTheJobClearly) {
    TempDir tmp;
    recipe::Recipe r = render_test::local_recipe({"true"});
    r.env = {{"TOKEN", "${env:TB_TEST_UNSET_SECRET}"}};
    RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    RenderedJob job = render::render(r, options).at(0);
    fs::path file = tmp.path() / "run.sh";
    for (const RenderedFile& f : job.files)
        if (f.path == job.entrypoint) write_file_atomic(file, f.content);
    ProcessResult res = render_test::run_bash(file, {{"TRAINBENCH_RUN_DIR", tmp.path().string()}}, tmp.path());
    EXPECT_NE(res.exit_code, 0);
    EXPECT_NE(res.err.find("TB_TEST_UNSET_SECRET must be set"), std::string::npos) << res.err;
    EXPECT_NE(read_file(tmp.path() / "status" / "train.exit").substr(0, 2), "0 ");
}

TEST(Escape, ASlurmScriptWithHostileValuesPassesThemToSrunByteExact) {
    TempDir tmp;
    fs::remove("/tmp/trainbench-pwned");
    recipe::Recipe r = render_test::base_recipe("nemo");
    const std::string evil_arg = "+x=$(touch /tmp/trainbench-pwned)'`id`\"\n;#";
    const std::string evil_image = "registry/img:1 $(touch /tmp/trainbench-pwned)";
    r.launch.extra_args = {evil_arg};
    r.container.image = evil_image;
    r.env = {{"EVIL", "x\"; rm -rf / #"}};
    RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    RenderedJob job = render::render(r, options).at(0);
    fs::path script = tmp.path() / "job.sbatch";
    for (const RenderedFile& f : job.files)
        if (f.path == job.entrypoint) write_file_atomic(script, f.content);
    // A stand-in srun that prints its arguments and one variable, NUL-separated.
    fs::create_directories(tmp.path() / "bin");
    write_file_atomic(tmp.path() / "bin" / "srun", "#!/bin/bash\nprintf '%s\\0' \"$@\" \"$EVIL\"\n",
                      fs::perms::owner_all);
    const char* path = std::getenv("PATH");
    ProcessResult res =
        render_test::run_bash(script,
                              {{"TRAINBENCH_RUN_DIR", tmp.path().string()},
                               {"PATH", (tmp.path() / "bin").string() + ":" + (path ? path : "/usr/bin:/bin")},
                               {"SLURM_JOB_ID", "42"}},
                              tmp.path());
    ASSERT_EQ(res.exit_code, 0) << res.err;
    std::vector<std::string> args;
    std::size_t start = 0;
    while (start < res.out.size()) {
        std::size_t end = res.out.find('\0', start);
        args.push_back(res.out.substr(start, end - start));
        start = end + 1;
    }
    ASSERT_GE(args.size(), 3u);
    EXPECT_EQ(args.back(), "x\"; rm -rf / #");
    EXPECT_EQ(args[args.size() - 2], evil_arg);
    EXPECT_NE(std::find(args.begin(), args.end(), "--container-image=" + evil_image), args.end());
    EXPECT_NE(std::find(args.begin(), args.end(),
                        "--container-mounts=/opt/microsoft:/opt/microsoft,/fsx:/fsx," + tmp.path().string() + ":" +
                            tmp.path().string()),
              args.end());
    EXPECT_FALSE(fs::exists("/tmp/trainbench-pwned"));
    EXPECT_EQ(read_file(tmp.path() / "status" / "train.exit").substr(0, 2), "0 ");
}
