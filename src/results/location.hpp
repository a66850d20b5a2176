// Private to results: what a results location names (a SQLite file or a PostgreSQL server)
// and how it may be shown. A PostgreSQL password can hide in every form libpq accepts: URI
// userinfo, a ?password= parameter (its name percent-encoded or not), a conninfo string
// ("host=... password='...'"), and the scheme's case varies; each is found here, so no message
// shows it and no file is named after it.
#pragma once

#include <string>
#include <vector>

namespace trainbench::results::detail {

struct Location {
    enum class Engine { sqlite, postgresql } engine = Engine::sqlite;
    std::string target;                // the SQLite path, or what libpq is given (URI scheme in lower case)
    std::string shown;                 // for messages: passwords as ***
    std::vector<std::string> secrets;  // the password texts (raw and decoded), longest first
};

// Throws UsageError for an empty location or a URI of a scheme other than postgresql/postgres
// (any case); "sqlite:PATH" and any other text are SQLite paths.
[[nodiscard]] Location parse_location(const std::string& location);

// `text` (a message, e.g. libpq's, which may quote the location) with the location shown
// masked and every secret replaced by ***.
[[nodiscard]] std::string scrub(std::string text, const Location& where);

}  // namespace trainbench::results::detail
