// custom: the recipe's own training command (launch.command), run as given.
#include "render/frameworks/framework.hpp"

namespace trainbench::render {

FrameworkLaunch custom_launch(const Facts& f) {
    if (f.r.launch.command.empty())
        throw InputError("framework 'custom' needs launch.command (the training command as a list of words)");
    FrameworkLaunch out;
    for (const std::string& word : f.r.launch.command) out.program.emplace_back(word);
    return out;
}

}  // namespace trainbench::render
