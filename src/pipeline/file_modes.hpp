// Private to pipeline: the modes of the job files it writes.
#pragma once

#include <filesystem>

namespace trainbench::pipeline {

inline constexpr std::filesystem::perms k_file_mode =
    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read |
    std::filesystem::perms::others_read;
inline constexpr std::filesystem::perms k_script_mode = k_file_mode | std::filesystem::perms::owner_exec |
                                                        std::filesystem::perms::group_exec |
                                                        std::filesystem::perms::others_exec;

}  // namespace trainbench::pipeline
