// The file system the run store is on. Every node of a Slurm job changes into
// the run directory and bind-mounts it into the container, so the store must be
// on a file system all nodes share (NFS, Lustre, GPFS, BeeGFS, CephFS, ...);
// a node-local one (tmpfs, ext4, XFS, ...) works only when every job runs on
// the submitting host.
#include <trainbench/run.hpp>

#include <array>
#include <sys/vfs.h>

namespace fs = std::filesystem;

namespace trainbench::run {

namespace {

struct Magic {
    unsigned long long magic;
    const char* name;
    bool shared;
};

// statfs(2) f_type values (linux/magic.h and the file systems' own headers).
constexpr std::array<Magic, 19> k_types{{
    {0x6969, "nfs", true},        {0xFF534D42, "cifs", true},       {0xFE534D42, "smb2", true},
    {0x0BD00BD0, "lustre", true}, {0x47504653, "gpfs", true},       {0x19830326, "beegfs", true},
    {0x00C36400, "ceph", true},   {0x65735546, "fuse", true},       {0x013111A8, "ibrix", true},
    {0x01021994, "tmpfs", false}, {0xEF53, "ext2/3/4", false},      {0x58465342, "xfs", false},
    {0x9123683E, "btrfs", false}, {0x794C7630, "overlayfs", false}, {0x2FC12FC1, "zfs", false},
    {0x858458F6, "ramfs", false}, {0xF2F52010, "f2fs", false},      {0x4D44, "vfat", false},
    {0x5346544E, "ntfs", false},
}};

}  // namespace

StoreFilesystem store_filesystem(const fs::path& path) {
    // The store may not exist yet: ask about its nearest existing ancestor.
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    while (!p.empty() && !fs::exists(p, ec) && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
    struct statfs st {};
    if (::statfs(p.c_str(), &st) != 0) return {};
    const auto magic = static_cast<unsigned long long>(static_cast<unsigned int>(st.f_type));
    for (const Magic& m : k_types)
        if (m.magic == magic) return {m.name, m.shared, true};
    return {"unknown", true, false};
}

}  // namespace trainbench::run
