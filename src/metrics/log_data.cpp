// LogData: the one metric model every parser fills.
#include "metrics/common.hpp"

#include <nlohmann/json.hpp>

namespace trainbench::metrics {

const Series* LogData::find(std::string_view name) const {
    auto it = series.find(std::string(name));
    if (it != series.end()) return &it->second;
    for (const auto& [key, s] : series)
        if (s.source_name == name) return &s;
    return nullptr;
}

void LogData::add_point(std::string_view name, std::string_view source_name, Point p) {
    auto it = series.find(std::string(name));
    if (it == series.end()) {
        Series s;
        s.name = std::string(name);
        s.source_name = std::string(source_name.empty() ? name : source_name);
        it = series.emplace(s.name, std::move(s)).first;
    }
    detail::insert_point(it->second, p);
}

std::optional<double> LogData::parameter_number(std::string_view name) const {
    auto it = parameters.find(std::string(name));
    if (it == parameters.end()) return std::nullopt;
    const std::string& text = it->second;
    if (text == "true") return 1.0;
    if (text == "false") return 0.0;
    if (auto v = detail::to_number(text)) return v;
    if (auto s = parameter_text(name); s && s != text) return detail::to_number(*s);
    return std::nullopt;
}

std::optional<std::string> LogData::parameter_text(std::string_view name) const {
    auto it = parameters.find(std::string(name));
    if (it == parameters.end()) return std::nullopt;
    const std::string& text = it->second;
    if (text.size() >= 2 && text.front() == '"') {
        nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_string()) return j.get<std::string>();
    }
    return text;
}

}  // namespace trainbench::metrics
