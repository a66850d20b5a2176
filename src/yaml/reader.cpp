// The YAML tree: Node, parsing files and override values (with yaml-cpp), merging, JSON.
// Typed reads of scalars and maps: map_reader.cpp.
#include <trainbench/yaml.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

namespace trainbench::yaml {

// ---------------------------------------------------------------- Node

const Entry* Node::find_entry(std::string_view key) const {
    for (const Entry& e : entries)
        if (e.key == key) return &e;
    return nullptr;
}

Entry* Node::find_entry(std::string_view key) {
    for (Entry& e : entries)
        if (e.key == key) return &e;
    return nullptr;
}

const Node* Node::find(std::string_view key) const {
    const Entry* e = find_entry(key);
    return e ? &e->value : nullptr;
}

Node* Node::find(std::string_view key) {
    Entry* e = find_entry(key);
    return e ? &e->value : nullptr;
}

Node& Node::set(const std::string& key, Node value, SourceLocation key_where) {
    if (Entry* e = find_entry(key)) {
        e->value = std::move(value);
        return e->value;
    }
    entries.push_back(Entry{key, std::move(key_where), std::move(value)});
    return entries.back().value;
}

bool Node::erase(std::string_view key) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.key == key; });
    if (it == entries.end()) return false;
    entries.erase(it);
    return true;
}

std::string Node::describe() const {
    switch (kind) {
        case Kind::null:
            return "null";
        case Kind::map:
            return "a map";
        case Kind::sequence:
            return "a list";
        case Kind::scalar:
            break;
    }
    if (scalar.empty()) return "an empty string";
    std::string shown = scalar.size() > 40 ? scalar.substr(0, 37) + "..." : scalar;
    return fmt::format("'{}'", shown);
}

Node Node::make_scalar(std::string text, SourceLocation where, bool quoted) {
    Node n;
    n.kind = Kind::scalar;
    n.scalar = std::move(text);
    n.quoted = quoted;
    n.where = std::move(where);
    return n;
}

Node Node::make_map(SourceLocation where) {
    Node n;
    n.kind = Kind::map;
    n.where = std::move(where);
    return n;
}

// ---------------------------------------------------------------- parsing

namespace {

SourceLocation locate(const YAML::Mark& mark, const std::string& file, const SourceLocation& fallback) {
    if (mark.is_null() || mark.line < 0) return fallback;
    return SourceLocation{file, mark.line + 1, mark.column + 1, {}};
}

// What a document may expand to: YAML aliases (&a / *a) let a few hundred bytes stand for
// millions of nodes (an "alias bomb"), so nodes are counted as the tree is built, and the
// conversion stops at the limit before building anything more.
struct Budget {
    std::size_t nodes = 0;
    bool exceeded = false;
};

// Converts a yaml-cpp tree. `override_where` (when known) locates every node
// at a command-line override instead of a file position.
Node convert(const YAML::Node& y, const std::string& file, const SourceLocation& fallback,
             const std::optional<SourceLocation>& override_where, Diagnostics& d, int depth, Budget& budget) {
    Node n;
    if (budget.exceeded) return n;
    n.where = override_where ? *override_where : locate(y.Mark(), file, fallback);
    if (++budget.nodes > k_max_document_nodes) {
        budget.exceeded = true;
        d.error(SourceLocation{file.empty() ? n.where.file : file, 1, 1, n.where.override_text}, {},
                fmt::format("the document expands to more than {} values (YAML aliases repeating large parts?)",
                            k_max_document_nodes),
                fmt::format("at most {} values once aliases are expanded", k_max_document_nodes),
                "write the repeated parts once (extends, a sweep) instead of through aliases");
        return n;
    }
    if (depth > 64) {
        d.error(n.where, {}, "document nested too deeply", "at most 64 levels");
        return n;
    }
    switch (y.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            n.kind = Kind::null;
            break;
        case YAML::NodeType::Scalar:
            n.kind = Kind::scalar;
            n.scalar = y.Scalar();
            n.quoted = y.Tag() == "!";
            break;
        case YAML::NodeType::Sequence:
            n.kind = Kind::sequence;
            for (const YAML::Node& item : y)
                n.items.push_back(convert(item, file, n.where, override_where, d, depth + 1, budget));
            break;
        case YAML::NodeType::Map:
            n.kind = Kind::map;
            for (auto it = y.begin(); it != y.end(); ++it) {
                SourceLocation key_where = override_where ? *override_where : locate(it->first.Mark(), file, n.where);
                if (!it->first.IsScalar()) {
                    d.error(key_where, {}, "a map key must be a plain string", "a string key");
                    continue;
                }
                std::string key = it->first.Scalar();
                if (const Entry* previous = n.find_entry(key)) {
                    d.error(key_where, key,
                            fmt::format("duplicate key (first defined at line {})", previous->key_where.line), {},
                            "remove one of the two");
                    continue;
                }
                n.entries.push_back(
                    Entry{key, key_where, convert(it->second, file, key_where, override_where, d, depth + 1, budget)});
            }
            break;
    }
    return n;
}

// YAML forbids tabs for indentation; yaml-cpp's own message for them is obscure.
bool check_tabs(std::string_view text, const std::string& file, Diagnostics& d) {
    bool ok = true;
    int line = 1;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t end = text.find('\n', i);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(i, end - i);
        for (std::size_t c = 0; c < l.size() && (l[c] == ' ' || l[c] == '\t' || l[c] == '-'); ++c) {
            if (l[c] == '\t') {
                d.error(SourceLocation{file, line, static_cast<int>(c) + 1, {}}, {}, "tab character in indentation",
                        "spaces", "YAML indents with spaces only; replace the tab");
                ok = false;
                break;
            }
        }
        i = end + 1;
        ++line;
    }
    return ok;
}

std::string clean_message(std::string msg) {
    // yaml-cpp messages are capitalised ("illegal map value"); ours are lower-case.
    if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
    return msg;
}

}  // namespace

Node parse(std::string_view text, const std::string& file, Diagnostics& diagnostics) {
    if (text.size() > k_max_document_bytes) {
        diagnostics.error(
            SourceLocation{file, 1, 1, {}}, {},
            fmt::format("the document is {} bytes, more than a recipe or catalog file may be", text.size()),
            fmt::format("at most {} bytes", k_max_document_bytes));
        return Node{};
    }
    if (!check_tabs(text, file, diagnostics)) return Node{};
    try {
        YAML::Node y = YAML::Load(std::string(text));
        Diagnostics local;
        Budget budget;
        Node n = convert(y, file, SourceLocation{file, 1, 1, {}}, std::nullopt, local, 0, budget);
        diagnostics.merge(local);
        if (local.has_errors()) return Node{};
        return n;
    } catch (const YAML::Exception& e) {
        diagnostics.error(locate(e.mark, file, SourceLocation{file, 0, 0, {}}), {},
                          fmt::format("invalid YAML: {}", clean_message(e.msg)), {},
                          "check the indentation and quoting around this position");
        return Node{};
    }
}

Node parse_file(const std::filesystem::path& path, const std::string& display_name, Diagnostics& diagnostics,
                const SourceLocation& from) {
    std::string text;
    try {
        // Never read a file larger than a document may be (a 2 GB "recipe" is an error, not a read).
        std::error_code ec;
        std::uintmax_t size = std::filesystem::file_size(path, ec);
        if (!ec && size > k_max_document_bytes) {
            diagnostics.error(
                from.known() ? from : SourceLocation{display_name, 1, 1, {}}, {},
                fmt::format("'{}' is {} bytes, more than a recipe or catalog file may be", display_name, size),
                fmt::format("at most {} bytes", k_max_document_bytes));
            return Node{};
        }
        text = read_file(path);
    } catch (const Error& e) {
        diagnostics.error(from.known() ? from : SourceLocation{display_name, 0, 0, {}}, {},
                          fmt::format("cannot read '{}'", display_name), {}, e.what());
        return Node{};
    }
    return parse(text, display_name, diagnostics);
}

namespace {

// A word YAML reads as itself: a plain scalar of letters, digits, '_', '.' and '-' (not first),
// not one of YAML's null words. Most override values (numbers, names) are one; they skip the
// YAML parser, which a sweep would otherwise run for every value of every point.
bool plain_word(std::string_view text) {
    if (text == "null" || text == "Null" || text == "NULL") return false;
    auto word_char = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    };
    return text.front() != '-' && std::all_of(text.begin(), text.end(), word_char);
}

}  // namespace

Node parse_value(std::string_view text, const SourceLocation& where, Diagnostics& diagnostics) {
    if (text.empty()) return Node::make_scalar({}, where, true);
    if (plain_word(text)) return Node::make_scalar(std::string(text), where, false);
    try {
        YAML::Node y = YAML::Load(std::string(text));
        Budget budget;
        return convert(y, {}, where, where, diagnostics, 0, budget);
    } catch (const YAML::Exception& e) {
        diagnostics.error(where, {}, fmt::format("invalid value: {}", clean_message(e.msg)), {},
                          "quote the value for the shell, e.g. -s 'key=[1, 2]'");
        return Node{};
    }
}

void merge(Node& base, const Node& over) {
    if (base.is_map() && over.is_map()) {
        for (const Entry& e : over.entries) {
            if (Entry* existing = base.find_entry(e.key)) {
                merge(existing->value, e.value);
                existing->key_where = e.key_where;
            } else {
                base.entries.push_back(e);
            }
        }
        return;
    }
    base = over;
}

nlohmann::ordered_json to_json(const Node& node) {
    switch (node.kind) {
        case Kind::null:
            return nullptr;
        case Kind::sequence: {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (const Node& i : node.items) a.push_back(to_json(i));
            return a;
        }
        case Kind::map: {
            nlohmann::ordered_json o = nlohmann::ordered_json::object();
            for (const Entry& e : node.entries) o[e.key] = to_json(e.value);
            return o;
        }
        case Kind::scalar:
            break;
    }
    if (node.quoted) return node.scalar;
    const std::string& s = node.scalar;
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return i;
    double dv = 0;
    auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), dv);
    if (ec2 == std::errc() && p2 == s.data() + s.size() && !s.empty() && std::isfinite(dv)) return dv;
    return s;
}

}  // namespace trainbench::yaml
