#include "render/template_engine.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

// kainjow's context::push inlines a vector insert that GCC 12 flags as a
// potential null dereference (a false positive inside the library).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <kainjow/mustache.hpp>

#include <algorithm>
#include <set>

namespace fs = std::filesystem;
using nlohmann::ordered_json;
namespace km = kainjow::mustache;

namespace trainbench::render {

namespace {

constexpr int k_max_partial_depth = 16;

km::data to_mustache(const ordered_json& j) {
    switch (j.type()) {
        case ordered_json::value_t::object: {
            km::data d{km::data::type::object};
            for (const auto& [key, value] : j.items()) d.set(key, to_mustache(value));
            return d;
        }
        case ordered_json::value_t::array: {
            km::data d{km::data::type::list};
            for (const auto& value : j) d.push_back(to_mustache(value));
            return d;
        }
        case ordered_json::value_t::string:
            return km::data{j.get<std::string>()};
        case ordered_json::value_t::boolean:
            return km::data{j.get<bool>()};
        case ordered_json::value_t::number_integer:
            return km::data{std::to_string(j.get<std::int64_t>())};
        case ordered_json::value_t::number_unsigned:
            return km::data{std::to_string(j.get<std::uint64_t>())};
        case ordered_json::value_t::number_float:
            return km::data{fmt::format("{}", j.get<double>())};
        default:
            return km::data{false};
    }
}

// A scope of the strict check: the object a section pushes. For a list, the
// union of its items' keys; `unknown` when the shape cannot be known (an
// empty list), so names inside are not checked.
struct Scope {
    ordered_json object;  // object or null
    bool unknown = false;
    bool item = false;  // a list item: '.' is valid
};

ordered_json merged_items(const ordered_json& list) {
    ordered_json merged = ordered_json::object();
    bool any_object = false;
    for (const auto& item : list) {
        if (!item.is_object()) continue;
        any_object = true;
        for (const auto& [k, v] : item.items())
            if (!merged.contains(k)) merged[k] = v;
    }
    return any_object ? merged : ordered_json();
}

const ordered_json* resolve(const std::vector<Scope>& stack, const std::string& name) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = name.find('.', start);
        parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (!it->object.is_object() || !it->object.contains(parts.front())) continue;
        const ordered_json* v = &it->object[parts.front()];
        for (std::size_t i = 1; i < parts.size() && v; ++i) {
            if (v->is_object() && v->contains(parts[i]))
                v = &(*v)[parts[i]];
            else
                v = nullptr;
        }
        if (v) return v;  // like kainjow: a dotted name that fails here may resolve in an outer scope
    }
    return nullptr;
}

void collect_names(const ordered_json& j, const std::string& prefix, std::vector<std::string>& out) {
    if (!j.is_object()) return;
    for (const auto& [k, v] : j.items()) {
        std::string name = prefix.empty() ? k : prefix + "." + k;
        out.push_back(name);
        if (v.is_object()) collect_names(v, name, out);
        if (v.is_array()) collect_names(merged_items(v), name, out);
    }
}

}  // namespace

std::vector<std::string> context_names(const ordered_json& context) {
    std::vector<std::string> out;
    collect_names(context, "", out);
    return out;
}

// A template body parsed once (with its partials' prepared text), rendered many times.
struct TemplateEngine::Compiled {
    Compiled(const std::string& body, std::vector<std::pair<std::string, std::string>> p)
        : tmpl(body), partials(std::move(p)) {}
    km::mustache tmpl;
    std::vector<std::pair<std::string, std::string>> partials;  // name, prepared content
};

TemplateEngine::TemplateEngine(std::vector<fs::path> dirs) : m_dirs(std::move(dirs)) {}
TemplateEngine::~TemplateEngine() = default;

std::optional<fs::path> TemplateEngine::find(const fs::path& relative) const {
    auto [it, added] = m_found.try_emplace(relative.generic_string());
    if (!added) return it->second;
    std::error_code ec;
    for (const fs::path& dir : m_dirs) {
        fs::path p = dir / relative;
        if (fs::is_regular_file(p, ec)) return it->second = p;
    }
    return std::nullopt;
}

const ScanResult& TemplateEngine::scan(const std::string& text) const {
    auto it = m_scans.find(text);
    if (it == m_scans.end()) it = m_scans.emplace(text, scan_template(text)).first;
    return it->second;
}

std::vector<fs::path> TemplateEngine::list(const fs::path& family) const {
    auto [it, added] = m_lists.try_emplace(family.generic_string());
    if (added) it->second = list_files(family);
    return it->second;
}

std::vector<fs::path> TemplateEngine::list_files(const fs::path& family) const {
    std::set<std::string> names;
    std::error_code ec;
    for (const fs::path& dir : m_dirs) {
        fs::path root = dir / family;
        if (!fs::is_directory(root, ec)) continue;
        for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (ec) break;
            if (!it->is_regular_file(ec)) continue;
            std::string name = it->path().filename().string();
            if (name.empty() || name.front() == '.' || name.back() == '~') continue;  // editor leftovers
            names.insert(fs::relative(it->path(), root).lexically_normal().generic_string());
        }
    }
    std::vector<fs::path> out(names.begin(), names.end());
    return out;
}

const TemplateEngine::Source& TemplateEngine::load(const fs::path& relative) const {
    std::string key = relative.generic_string();
    auto it = m_cache.find(key);
    if (it != m_cache.end()) return it->second;
    std::optional<fs::path> file = find(relative);
    if (!file) {
        std::vector<std::string> dirs;
        for (const fs::path& d : m_dirs) dirs.push_back(d.string());
        throw InputError(fmt::format("template '{}' not found in {}", key, quoted_list(dirs, " or ")),
                         "check --templates and TRAINBENCH_TEMPLATES");
    }
    Source s{read_file(*file), file->string()};
    return m_cache.emplace(key, std::move(s)).first->second;
}

namespace {

// The state of one strict check: the scopes open at this point and what was found wrong.
struct CheckState {
    const ordered_json& context;
    Diagnostics diagnostics;
    std::optional<std::vector<std::string>> names;  // for did-you-mean: only when a tag is wrong
    std::vector<Scope> stack;
};

// A name the context does not have, with the names it does have as did-you-mean candidates.
void report_unknown_name(CheckState& st, const TemplateTag& tag, const SourceLocation& where) {
    if (!st.names) st.names = context_names(st.context);
    std::vector<std::string> candidates = *st.names;
    for (const Scope& s : st.stack)
        if (s.object.is_object())
            for (const auto& [k, v] : s.object.items()) candidates.push_back(k);
    st.diagnostics.error(where, tag.name, fmt::format("template uses '{}', which the context does not have", tag.text),
                         {}, did_you_mean(tag.name, candidates));
}

// A variable or section tag must name something in scope ('.' only inside a list); a
// variable must name a string or number. Returns what it names (null when unknown or '.').
const ordered_json* check_name(CheckState& st, const TemplateTag& tag, const SourceLocation& where, bool in_unknown) {
    if (tag.name == ".") {
        if (!st.stack.back().item && !in_unknown)
            st.diagnostics.error(where, tag.name, fmt::format("'{}' is only valid inside a list section", tag.text));
        return nullptr;
    }
    const ordered_json* value = resolve(st.stack, tag.name);
    if (!value && !in_unknown) {
        report_unknown_name(st, tag, where);
    } else if (value && (tag.kind == TagKind::variable || tag.kind == TagKind::raw) &&
               !(value->is_string() || value->is_number())) {
        st.diagnostics.error(where, tag.name,
                             fmt::format("'{}' names a {}, which only works as a section ({{{{#{}}}}})", tag.text,
                                         value->type_name(), tag.name));
    }
    return value;
}

// A section opens the scope of what it names; an inverted section an empty one.
void open_scope(CheckState& st, const TemplateTag& tag, const ordered_json* value, bool in_unknown) {
    if (tag.kind == TagKind::section) {
        Scope scope;
        if (value && value->is_array()) {
            scope.item = true;
            if (value->empty())
                scope.unknown = true;
            else
                scope.object = merged_items(*value);
        } else if (value && value->is_object()) {
            scope.object = *value;
        } else if (!value) {
            scope.unknown = in_unknown;
        }
        st.stack.push_back(std::move(scope));
    } else if (tag.kind == TagKind::inverted) {
        st.stack.push_back(Scope{ordered_json(), false, false});
    }
}

void check_value_tag(CheckState& st, const TemplateTag& tag, const SourceLocation& where) {
    bool in_unknown = std::any_of(st.stack.begin(), st.stack.end(), [](const Scope& s) { return s.unknown; });
    const ordered_json* value = check_name(st, tag, where, in_unknown);
    open_scope(st, tag, value, in_unknown);
}

}  // namespace

void TemplateEngine::check(const Source& source, const ordered_json& context) const {
    CheckState st{context, {}, {}, {Scope{context, false, false}}};

    // Recursive over partials; `depth` guards against a partial including itself.
    std::function<void(const Source&, int)> walk = [&](const Source& src, int depth) {
        const ScanResult& scan = this->scan(src.text);
        if (!scan.error.empty()) {
            st.diagnostics.error(SourceLocation{src.display, scan.error_line, scan.error_column, {}}, {}, scan.error);
            return;
        }
        std::size_t base = st.stack.size();
        for (const TemplateTag& tag : scan.tags) {
            SourceLocation where{src.display, tag.line, tag.column, {}};
            switch (tag.kind) {
                case TagKind::comment:
                case TagKind::set_delimiter:
                    break;
                case TagKind::end:
                    if (st.stack.size() > base) st.stack.pop_back();
                    break;
                case TagKind::partial: {
                    if (depth >= k_max_partial_depth) {
                        st.diagnostics.error(
                            where, tag.name,
                            fmt::format("partials nested deeper than {} at '{}'", k_max_partial_depth, tag.text));
                        break;
                    }
                    if (!find(tag.name)) {
                        st.diagnostics.error(
                            where, tag.name,
                            fmt::format("template uses partial '{}', which no template directory has", tag.name));
                        break;
                    }
                    walk(load(tag.name), depth + 1);
                    break;
                }
                case TagKind::variable:
                case TagKind::raw:
                case TagKind::section:
                case TagKind::inverted:
                    check_value_tag(st, tag, where);
                    break;
            }
        }
        while (st.stack.size() > base) st.stack.pop_back();
    };
    walk(source, 0);
    if (st.diagnostics.has_errors()) {
        const Diagnostic& first = st.diagnostics.items().front();
        throw InputError(
            fmt::format("template '{}' does not fit the render context ({} problem{}; first: {})", source.display,
                        st.diagnostics.error_count(), st.diagnostics.error_count() == 1 ? "" : "s", first.message),
            st.diagnostics);
    }
}

std::string TemplateEngine::render(const fs::path& relative, const ordered_json& context) const {
    return render(relative, context, output_kind_for(relative));
}

std::string TemplateEngine::render(const fs::path& relative, const ordered_json& context, OutputKind kind) const {
    const Source& source = load(relative);
    return render_text(source.text, source.display, kind, context);
}

TemplateEngine::Compiled& TemplateEngine::compile(const std::string& text, const std::string& display_name) const {
    auto found = m_compiled.find(text);
    if (found != m_compiled.end()) return *found->second;
    // Partials: every {{> name}} reachable from this template, loaded from the template dirs.
    std::vector<std::pair<std::string, std::string>> partials;
    std::set<std::string> seen;
    std::vector<std::string> pending;
    auto add_partials = [&](const std::string& t) {
        for (const TemplateTag& tag : scan(t).tags)
            if (tag.kind == TagKind::partial && seen.insert(tag.name).second) pending.push_back(tag.name);
    };
    add_partials(text);
    while (!pending.empty()) {
        std::string name = pending.back();
        pending.pop_back();
        const Source& partial = load(name);
        add_partials(partial.text);
        partials.emplace_back(name, prepare_standalone_lines(partial.text));
    }
    auto compiled = std::make_unique<Compiled>(prepare_standalone_lines(text), std::move(partials));
    if (!compiled->tmpl.is_valid())
        throw InputError(fmt::format("{}: invalid template: {}", display_name, compiled->tmpl.error_message()));
    return *m_compiled.emplace(text, std::move(compiled)).first->second;
}

std::string TemplateEngine::render_text(const std::string& text, const std::string& display_name, OutputKind kind,
                                        const ordered_json& context) const {
    Source source{text, display_name};
    check(source, context);

    Compiled& compiled = compile(text, display_name);
    km::data data = to_mustache(context);
    for (const auto& [name, content] : compiled.partials)
        data.set(name, km::data{km::partial{[&c = content] { return c; }}});
    km::mustache& tmpl = compiled.tmpl;
    tmpl.set_custom_escape(escaper(kind));
    std::string out = tmpl.render(data);
    if (!tmpl.is_valid()) {
        std::string message = fmt::format("{}: template failed to render: {}", display_name, tmpl.error_message());
        m_compiled.erase(text);  // not to be used again
        throw InputError(message);
    }
    out.erase(std::remove(out.begin(), out.end(), k_line_mark), out.end());
    return out;
}

}  // namespace trainbench::render
