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

// One FNV-1a step over `bytes` for the shape of a context (below).
void mix(std::uint64_t& h, std::string_view bytes) {
    h = fnv1a(bytes, h);
}

// The context as kainjow data, built in place: kainjow's set() and push_back() copy their
// argument, which would copy every subtree once per level above it. `shape` takes in what the
// strict check depends on: every key, every value's type, every list's items, but no value.
km::data to_mustache(const ordered_json& j, std::uint64_t& shape) {
    switch (j.type()) {
        case ordered_json::value_t::object: {
            mix(shape, "{");
            km::data d{km::data::type::object};
            for (const auto& [key, value] : j.items()) {
                mix(shape, key);
                mix(shape, std::string_view("\0", 1));
                d[key] = to_mustache(value, shape);
            }
            mix(shape, "}");
            return d;
        }
        case ordered_json::value_t::array: {
            mix(shape, "[");
            km::data d{km::data::type::list};
            // list_value() is the data's own (non-const) vector seen through a const reference.
            auto& items = const_cast<km::list&>(d.list_value());
            items.reserve(j.size());
            for (const auto& value : j) items.push_back(to_mustache(value, shape));
            mix(shape, "]");
            return d;
        }
        case ordered_json::value_t::string:
            mix(shape, "s");
            return km::data{j.get_ref<const std::string&>()};
        case ordered_json::value_t::boolean:
            mix(shape, "b");
            return km::data{j.get<bool>()};
        case ordered_json::value_t::number_integer:
            mix(shape, "n");
            return km::data{std::to_string(j.get<std::int64_t>())};
        case ordered_json::value_t::number_unsigned:
            mix(shape, "n");
            return km::data{std::to_string(j.get<std::uint64_t>())};
        case ordered_json::value_t::number_float:
            mix(shape, "n");
            return km::data{fmt::format("{}", j.get<double>())};
        default:
            mix(shape, "z");
            return km::data{false};
    }
}

// A scope of the strict check: the object a section pushes. For a list, the
// union of its items' keys; `unknown` when the shape cannot be known (an
// empty list), so names inside are not checked.
struct Scope {
    const ordered_json* object = nullptr;        // an object, or null/nullptr: nothing to look up
    std::shared_ptr<const ordered_json> merged;  // a list's merged items, which `object` points to
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
        if (!it->object || !it->object->is_object() || !it->object->contains(parts.front())) continue;
        const ordered_json* v = &(*it->object)[parts.front()];
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
        if (s.object && s.object->is_object())
            for (const auto& [k, v] : s.object->items()) candidates.push_back(k);
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
            if (value->empty()) {
                scope.unknown = true;
            } else {
                scope.merged = std::make_shared<const ordered_json>(merged_items(*value));
                scope.object = scope.merged.get();
            }
        } else if (value && value->is_object()) {
            scope.object = value;
        } else if (!value) {
            scope.unknown = in_unknown;
        }
        st.stack.push_back(std::move(scope));
    } else if (tag.kind == TagKind::inverted) {
        st.stack.push_back(Scope{});
    }
}

void check_value_tag(CheckState& st, const TemplateTag& tag, const SourceLocation& where) {
    bool in_unknown = std::any_of(st.stack.begin(), st.stack.end(), [](const Scope& s) { return s.unknown; });
    const ordered_json* value = check_name(st, tag, where, in_unknown);
    open_scope(st, tag, value, in_unknown);
}

}  // namespace

void TemplateEngine::check(const Source& source, const ordered_json& context) const {
    CheckState st{context, {}, {}, {Scope{&context, nullptr, false, false}}};

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

// The context as the engine reads it: converted once for all the templates of one render_all,
// with the shape of the context (what the strict check depends on).
struct TemplateEngine::EngineData {
    explicit EngineData(const ordered_json& context) : data(to_mustache(context, shape)) {}
    std::uint64_t shape = k_fnv1a_offset;
    km::data data;
};

std::string TemplateEngine::render(const fs::path& relative, const ordered_json& context, OutputKind kind) const {
    EngineData data(context);
    return render_source(load(relative), kind, context, data);
}

std::vector<std::string> TemplateEngine::render_all(const std::vector<fs::path>& relatives,
                                                    const ordered_json& context) const {
    EngineData data(context);
    std::vector<std::string> out;
    out.reserve(relatives.size());
    for (const fs::path& relative : relatives)
        out.push_back(render_source(load(relative), output_kind_for(relative), context, data));
    return out;
}

bool TemplateEngine::changes_delimiters(const std::string& text) const {
    const std::vector<TemplateTag>& tags = scan(text).tags;
    return std::any_of(tags.begin(), tags.end(), [](const TemplateTag& t) { return t.kind == TagKind::set_delimiter; });
}

// Prepared text with every partial written in place of its tag (recursively), so the engine
// parses a partial once per template instead of at every use (kainjow compiles a partial's
// text each time it renders it). A partial tag is standalone on its own line in prepared
// text, and renders in the caller's context: its prepared text in place is the same output.
// Returns nullopt when a set-delimiter tag is involved (the tag positions would not hold).
std::optional<std::string> TemplateEngine::inline_partials(const std::string& prepared, int depth) const {
    if (changes_delimiters(prepared)) return std::nullopt;
    const std::vector<TemplateTag>& tags = scan(prepared).tags;
    std::string out;
    std::size_t done = 0;
    for (const TemplateTag& tag : tags) {
        if (tag.kind != TagKind::partial) continue;
        if (depth >= k_max_partial_depth || !find(tag.name)) return std::nullopt;  // the engine reports it
        std::optional<std::string> body = inline_partials(prepare_standalone_lines(load(tag.name).text), depth + 1);
        if (!body) return std::nullopt;
        out.append(prepared, done, tag.offset - done);
        out += *body;
        done = tag.offset + tag.text.size();
    }
    if (done == 0) return prepared;
    out.append(prepared, done, std::string::npos);
    return out;
}

TemplateEngine::Compiled& TemplateEngine::compile(const std::string& text, const std::string& display_name) const {
    auto found = m_compiled.find(text);
    if (found != m_compiled.end()) return *found->second;
    std::unique_ptr<Compiled> compiled;
    if (std::optional<std::string> whole = inline_partials(prepare_standalone_lines(text), 0)) {
        compiled = std::make_unique<Compiled>(*whole, std::vector<std::pair<std::string, std::string>>{});
    } else {
        // Partials for the engine: every {{> name}} reachable from this template.
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
        compiled = std::make_unique<Compiled>(prepare_standalone_lines(text), std::move(partials));
    }
    if (!compiled->tmpl.is_valid())
        throw InputError(fmt::format("{}: invalid template: {}", display_name, compiled->tmpl.error_message()));
    return *m_compiled.emplace(text, std::move(compiled)).first->second;
}

std::string TemplateEngine::render_text(const std::string& text, const std::string& display_name, OutputKind kind,
                                        const ordered_json& context) const {
    EngineData data(context);
    return render_source(Source{text, display_name}, kind, context, data);
}

std::string TemplateEngine::render_source(const Source& source, OutputKind kind, const ordered_json& context,
                                          EngineData& data) const {
    // The strict check depends on the template and the context's shape only: a sweep's points
    // share both, and a shape that passed once passes again.
    std::uint64_t checked = data.shape;
    mix(checked, source.text);
    if (m_checked.count(checked) == 0) {
        check(source, context);
        m_checked.insert(checked);
    }
    Compiled& compiled = compile(source.text, source.display);
    for (const auto& [name, content] : compiled.partials)
        data.data.set(name, km::data{km::partial{[&c = content] { return c; }}});
    km::mustache& tmpl = compiled.tmpl;
    tmpl.set_custom_escape(escaper(kind));
    std::string out = tmpl.render(data.data);
    if (!tmpl.is_valid()) {
        std::string message = fmt::format("{}: template failed to render: {}", source.display, tmpl.error_message());
        m_compiled.erase(source.text);  // not to be used again
        throw InputError(message);
    }
    out.erase(std::remove(out.begin(), out.end(), k_line_mark), out.end());
    return out;
}

}  // namespace trainbench::render
