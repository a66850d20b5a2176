// Results locations and their passwords (results/location.hpp).
#include "results/location.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace trainbench::results::detail {

namespace {

constexpr const char* k_mask = "***";

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && lower(s.substr(0, prefix.size())) == prefix;
}

std::string percent_decoded(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// Records a password: as written, decoded, and (when it holds characters a URI parser stops
// at) its pieces, which a parser's error message may quote one by one.
void add_secret(Location& where, std::string_view raw) {
    if (raw.empty()) return;
    where.secrets.emplace_back(raw);
    where.secrets.push_back(percent_decoded(raw));
    if (raw.find_first_of("/@?:&#") != std::string_view::npos) {
        std::size_t start = 0;
        while (start < raw.size()) {
            std::size_t end = raw.find_first_of("/@?:&#", start);
            if (end == std::string_view::npos) end = raw.size();
            if (end - start >= 2) where.secrets.emplace_back(raw.substr(start, end - start));
            start = end + 1;
        }
    }
}

bool is_password_key(std::string_view key) {
    return lower(percent_decoded(key)).find("password") != std::string::npos;
}

// "scheme://user:password@host/db?k=v&password=x": the userinfo password (everything between
// the first ':' after "://" and the last '@' before the query) and password parameters.
void mask_uri(Location& where, const std::string& uri) {
    const std::size_t body = uri.find("://") + 3;
    const std::size_t query = uri.find('?', body);
    const std::size_t at = uri.rfind('@', query == std::string::npos ? std::string::npos : query);
    std::string shown = uri;
    if (at != std::string::npos && at >= body) {
        const std::size_t colon = uri.find(':', body);
        if (colon != std::string::npos && colon < at) {
            add_secret(where, std::string_view(uri).substr(colon + 1, at - colon - 1));
            shown = uri.substr(0, colon + 1) + k_mask + uri.substr(at);
        }
    }
    const std::size_t q = shown.find('?', body);
    if (q != std::string::npos) {
        std::string params;
        std::size_t start = q + 1;
        while (start <= shown.size()) {
            std::size_t end = shown.find('&', start);
            if (end == std::string::npos) end = shown.size();
            std::string p = shown.substr(start, end - start);
            const std::size_t eq = p.find('=');
            if (eq != std::string::npos && is_password_key(p.substr(0, eq))) {
                add_secret(where, std::string_view(p).substr(eq + 1));
                p = p.substr(0, eq + 1) + k_mask;
            }
            params += (start == q + 1 ? "" : "&") + p;
            start = end + 1;
        }
        shown = shown.substr(0, q + 1) + params;
    }
    where.shown = shown;
}

// A libpq conninfo string: "key = value" pairs, a value either 'quoted' (with \' and \\) or a
// word up to the next space (with \ escapes). Password values are masked; a string that does
// not parse is masked from the first password keyword on.
void mask_conninfo(Location& where, const std::string& text) {
    auto space = [&](std::size_t i) { return i < text.size() && std::isspace(static_cast<unsigned char>(text[i])); };
    std::string shown;
    std::size_t i = 0, copied = 0;
    while (true) {
        while (space(i)) ++i;
        if (i >= text.size()) break;
        const std::size_t key_start = i;
        while (i < text.size() && text[i] != '=' && !space(i)) ++i;
        const std::string key = text.substr(key_start, i - key_start);
        while (space(i)) ++i;
        const bool secret = is_password_key(key);
        if (i >= text.size() || text[i] != '=') {  // malformed: libpq refuses it; show nothing after a password key
            if (lower(text).find("password", key_start) != std::string::npos) {
                add_secret(where, std::string_view(text).substr(key_start));
                where.shown = shown + text.substr(copied, key_start - copied) + k_mask;
                return;
            }
            break;
        }
        ++i;
        while (space(i)) ++i;
        const std::size_t value_start = i;
        std::string value;
        if (i < text.size() && text[i] == '\'') {
            for (++i; i < text.size() && text[i] != '\''; ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) ++i;
                value += text[i];
            }
            if (i < text.size()) ++i;  // the closing quote (none: libpq says "unterminated")
        } else {
            for (; i < text.size() && !space(i); ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) ++i;
                value += text[i];
            }
        }
        if (secret) {
            add_secret(where, std::string_view(text).substr(value_start, i - value_start));
            add_secret(where, value);
            shown += text.substr(copied, value_start - copied) + k_mask;
            copied = i;
        }
    }
    where.shown = shown + text.substr(copied);
}

bool has_scheme(const std::string& s) {
    const std::size_t sep = s.find("://");
    if (sep == std::string::npos || sep == 0 || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(sep), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    });
}

// "host=..." or " dbname = x": what libpq reads as a conninfo string.
bool is_conninfo(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t key = i;
    while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    if (i == key) return false;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return i < s.size() && s[i] == '=';
}

}  // namespace

Location parse_location(const std::string& location) {
    Location where;
    if (location.empty()) throw UsageError("empty results database location", "give a file path or postgresql://...");
    if (has_scheme(location)) {
        const std::string scheme = lower(location.substr(0, location.find("://")));
        mask_uri(where, location);
        if (scheme != "postgresql" && scheme != "postgres")
            throw UsageError(fmt::format("unknown scheme '{}' in the results database location '{}'",
                                         terminal_safe(scheme), terminal_safe(where.shown)),
                             "give postgresql://..., a libpq conninfo string (host=... dbname=...), a file path, "
                             "or sqlite:PATH");
        where.engine = Location::Engine::postgresql;
        where.target = scheme + location.substr(scheme.size());  // libpq knows the scheme in lower case only
    } else if (is_conninfo(location)) {
        mask_conninfo(where, location);
        where.engine = Location::Engine::postgresql;
        where.target = location;
    } else {
        where.target = starts_with_ci(location, "sqlite:") ? location.substr(7) : location;
        if (where.target.empty())
            throw UsageError("empty results database location", "give a file path or postgresql://...");
        where.shown = "sqlite:" + where.target;
    }
    std::sort(where.secrets.begin(), where.secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return where;
}

std::string scrub(std::string text, const Location& where) {
    auto replace_all = [&](const std::string& what, const std::string& with) {
        if (what.empty()) return;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
            text.replace(at, what.size(), with);
    };
    replace_all(where.target, where.shown);
    for (const std::string& s : where.secrets) replace_all(s, k_mask);
    return text;
}

}  // namespace trainbench::results::detail
