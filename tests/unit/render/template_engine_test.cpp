// The template engine: strict names, partials, delimiters, user overrides,
// and the rule that raw tags only place pre-escaped values.
#include "render/template_engine.hpp"

#include "render/template_scan.hpp"
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using nlohmann::ordered_json;
using render_test::TempDir;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

}  // namespace

TEST(TemplateEngine, AMissingVariableIsAnErrorNamingFileLineTagAndANearMiss) {
    TemplateEngine engine({});
    ordered_json ctx = {{"nodes", 2}, {"slurm", {{"partition", "gpu"}}}};
    try {
        (void)engine.render_text("#!/bin/bash\n#SBATCH --nodes={{nodes}}\n#SBATCH -p {{slurm.partiton}}\n",
                                 "job.sbatch", OutputKind::shell, ctx);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        ASSERT_EQ(e.diagnostics().error_count(), 1u);
        const Diagnostic& d = e.diagnostics().items().front();
        EXPECT_EQ(d.location.file, "job.sbatch");
        EXPECT_EQ(d.location.line, 3);
        EXPECT_EQ(d.location.column, 12);
        EXPECT_NE(d.message.find("{{slurm.partiton}}"), std::string::npos) << d.message;
        EXPECT_NE(d.hint.find("slurm.partition"), std::string::npos) << d.hint;
    }
}

TEST(TemplateEngine, NamesInsideSectionsThatDoNotRenderAreCheckedToo) {
    TemplateEngine engine({});
    ordered_json ctx = {{"flag", false}, {"items", ordered_json::array({{{"name", "a"}}})}};
    EXPECT_THROW((void)engine.render_text("{{#flag}}{{typo}}{{/flag}}", "t.sh", OutputKind::shell, ctx), InputError);
    EXPECT_THROW((void)engine.render_text("{{#items}}{{nme}}{{/items}}", "t.sh", OutputKind::shell, ctx), InputError);
    EXPECT_EQ(engine.render_text("{{#items}}{{name}};{{/items}}{{^flag}}off{{/flag}}", "t.sh", OutputKind::shell, ctx),
              "a;off");
}

// A passed check is remembered for the template and the context's shape (keys, types, list
// items), never for the template alone: a context of another shape is checked again.
TEST(TemplateEngine, AContextOfAnotherShapeIsCheckedAgain) {
    TemplateEngine engine({});
    const std::string t = "{{#items}}{{name}};{{/items}}n={{n}}";
    ordered_json ok = {{"n", 1}, {"items", ordered_json::array({{{"name", "a"}}})}};
    EXPECT_EQ(engine.render_text(t, "t.sh", OutputKind::shell, ok), "a;n=1");
    ordered_json other = {{"n", 2}, {"items", ordered_json::array({{{"name", "b"}}, {{"name", "c"}}})}};
    EXPECT_EQ(engine.render_text(t, "t.sh", OutputKind::shell, other), "b;c;n=2");
    ordered_json renamed = {{"n", 1}, {"items", ordered_json::array({{{"nme", "a"}}})}};
    EXPECT_THROW((void)engine.render_text(t, "t.sh", OutputKind::shell, renamed), InputError);
    ordered_json retyped = {{"n", ordered_json::object()}, {"items", ordered_json::array({{{"name", "a"}}})}};
    EXPECT_THROW((void)engine.render_text(t, "t.sh", OutputKind::shell, retyped), InputError);
    ordered_json missing = {{"items", ordered_json::array({{{"name", "a"}}})}};
    EXPECT_THROW((void)engine.render_text(t, "t.sh", OutputKind::shell, missing), InputError);
    EXPECT_EQ(engine.render_text(t, "t.sh", OutputKind::shell, ok), "a;n=1");
}

// A partial is written into the template that uses it (one parse per template); the output is
// what the engine's own partial rendering gives: standalone lines, nesting, the caller's context.
TEST(TemplateEngine, InlinedPartialsRenderAsPartials) {
    TempDir dir;
    write(dir.path() / "frameworks/inner.sh", "{{#flag}}\ninner {{name}}\n{{/flag}}\n");
    write(dir.path() / "frameworks/outer.sh", "outer\n{{> frameworks/inner.sh}}\nend outer\n");
    write(dir.path() / "local/run.sh", "a\n{{#items}}\n{{> frameworks/outer.sh}}\n{{/items}}\nz\n");
    TemplateEngine engine({dir.path()});
    ordered_json ctx = {{"flag", true},
                        {"name", "top"},
                        {"items", ordered_json::array({{{"name", "x"}}, {{"name", "y"}, {"flag", false}}})}};
    EXPECT_EQ(engine.render("local/run.sh", ctx), "a\nouter\ninner x\nend outer\nouter\nend outer\nz\n");
}

TEST(TemplateEngine, ASectionOnlyNameUsedAsAValueIsAnError) {
    TemplateEngine engine({});
    ordered_json ctx = {{"flag", true}};
    EXPECT_THROW((void)engine.render_text("x={{flag}}", "t.sh", OutputKind::shell, ctx), InputError);
}

TEST(TemplateEngine, SyntaxErrorsAreLocated) {
    TemplateEngine engine({});
    try {
        (void)engine.render_text("a\n{{#open}}\nb\n", "t.yaml", OutputKind::yaml, ordered_json{{"open", true}});
        FAIL();
    } catch (const InputError& e) {
        ASSERT_FALSE(e.diagnostics().items().empty());
        EXPECT_EQ(e.diagnostics().items().front().location.line, 2);
    }
}

TEST(TemplateEngine, ValuesAreEscapedForTheOutputKindAndRawTagsAreNot) {
    TemplateEngine engine({});
    ordered_json ctx = {{"v", "a b"}, {"n", 8}, {"pre_sh", "\"${X}\""}};
    EXPECT_EQ(engine.render_text("{{v}} {{n}} {{{pre_sh}}}", "t.sh", OutputKind::shell, ctx), "'a b' 8 \"${X}\"");
    EXPECT_EQ(engine.render_text("k: {{v}}\nn: {{{n}}}", "t.yaml", OutputKind::yaml, ctx), "k: \"a b\"\nn: 8");
    EXPECT_EQ(engine.render_text("<p>{{v}}</p>", "t.txt", OutputKind::text, ctx), "<p>a b</p>");
}

TEST(TemplateEngine, DelimiterSwitchLetsHelmSyntaxThrough) {
    TemplateEngine engine({});
    ordered_json ctx = {{"name", "x"}};
    std::string helm = "{{=<% %>=}}\nname: {{ .Release.Name | quote }}\nmine: <% name %>\n{{- if .Values.x }}\n";
    EXPECT_EQ(engine.render_text(helm, "job.yaml", OutputKind::yaml, ctx),
              "name: {{ .Release.Name | quote }}\nmine: \"x\"\n{{- if .Values.x }}\n");
}

TEST(TemplateEngine, PartialsComeFromTheTemplateDirsAndAreCheckedStrictly) {
    TempDir tmp;
    write(tmp.path() / "frameworks" / "p.sh", "echo {{word}}\n");
    write(tmp.path() / "frameworks" / "bad.sh", "echo {{wordd}}\n");
    TemplateEngine engine({tmp.path()});
    ordered_json ctx = {{"word", "hello world"}};
    EXPECT_EQ(engine.render_text("{{> frameworks/p.sh}}", "main.sh", OutputKind::shell, ctx), "echo 'hello world'\n");
    try {
        (void)engine.render_text("x\n{{> frameworks/bad.sh}}", "main.sh", OutputKind::shell, ctx);
        FAIL();
    } catch (const InputError& e) {
        const Diagnostic& d = e.diagnostics().items().front();
        EXPECT_EQ(d.location.file, (tmp.path() / "frameworks" / "bad.sh").string());
        EXPECT_EQ(d.location.line, 1);
        EXPECT_EQ(d.hint, "did you mean 'word'?");
    }
    EXPECT_THROW((void)engine.render_text("{{> frameworks/none.sh}}", "main.sh", OutputKind::shell, ctx), InputError);
}

TEST(TemplateEngine, AUserDirectoryOverridesShippedTemplatesFileByFile) {
    TempDir user;
    write(user.path() / "slurm" / "job.sbatch", "#!/bin/bash\n# mine: {{job_name}}\n");
    write(user.path() / "slurm" / "extra.sh", "echo {{nodes}}\n");
    TemplateEngine engine({user.path(), render_test::shipped_templates()});
    std::vector<fs::path> files = engine.list("slurm");
    EXPECT_NE(std::find(files.begin(), files.end(), fs::path("job.sbatch")), files.end());
    EXPECT_NE(std::find(files.begin(), files.end(), fs::path("extra.sh")), files.end());
    // Through render(): the user's job.sbatch wins, partials still come from the shipped dir.
    recipe::Recipe r = render_test::base_recipe();
    RenderOptions options;
    options.template_dirs = {user.path(), render_test::shipped_templates()};
    RenderedJob job = render::render(r, options).at(0);
    ASSERT_EQ(job.files.size(), 3u);  // and the NeMo config delivered with the job
    EXPECT_EQ(job.files[0].path, "extra.sh");
    EXPECT_EQ(job.files[0].content, "echo 2\n");
    EXPECT_EQ(job.files[1].content, "#!/bin/bash\n# mine: trainbench-test-recipe-dryrun\n");
    EXPECT_EQ(job.files[2].path, "nemo-config.yaml");
}

TEST(TemplateEngine, ShippedTemplatesUseRawTagsOnlyForPreEscapedKeys) {
    const std::vector<std::string>& allowed = pre_escaped_keys();
    std::size_t raw_tags = 0;
    for (const auto& entry : fs::recursive_directory_iterator(render_test::shipped_templates())) {
        if (!entry.is_regular_file()) continue;
        ScanResult scan = scan_template(read_file(entry.path()));
        ASSERT_TRUE(scan.error.empty()) << entry.path() << ": " << scan.error;
        std::vector<std::string> lists;  // enclosing list sections, for "list.key" names
        for (const TemplateTag& t : scan.tags) {
            if (t.kind == TagKind::section) lists.push_back(t.name);
            if (t.kind == TagKind::end && !lists.empty()) lists.pop_back();
            if (t.kind != TagKind::raw) continue;
            ++raw_tags;
            bool ok = std::find(allowed.begin(), allowed.end(), t.name) != allowed.end();
            for (const std::string& l : lists)
                if (std::find(allowed.begin(), allowed.end(), l + "." + t.name) != allowed.end()) ok = true;
            EXPECT_TRUE(ok) << entry.path().string() << ":" << t.line << ": raw tag " << t.text
                            << " names a value that is not pre-escaped";
        }
    }
    EXPECT_GT(raw_tags, 0u);
}

TEST(TemplateEngine, PreEscapedKeysAreIntegersOrMarkedShellOrYamlText) {
    // Every allow-listed key holds an integer, or its name says which output it was escaped for
    // (_sbatch: a value checked at load to hold only characters an #SBATCH line takes literally).
    recipe::Recipe r = render_test::base_recipe();
    ordered_json ctx = build_context(r, RenderOptions{}, effective_stages(r).front());
    for (const std::string& key : pre_escaped_keys()) {
        bool marked = key.size() > 3 && (key.substr(key.size() - 3) == "_sh" || key.substr(key.size() - 5) == "_yaml" ||
                                         (key.size() > 7 && key.substr(key.size() - 7) == "_sbatch"));
        if (marked) continue;
        const ordered_json* v = &ctx;
        std::size_t start = 0;
        while (v && start <= key.size()) {
            std::size_t dot = key.find('.', start);
            std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            v = v->is_object() && v->contains(part) ? &(*v)[part] : nullptr;
            if (dot == std::string::npos) break;
            start = dot + 1;
        }
        ASSERT_NE(v, nullptr) << key;
        EXPECT_TRUE(v->is_number_integer()) << key;
    }
}
