// Decoding the schedulers' settings (slurm, kubernetes, with the target's defaults) and stages.
#include "recipe/loading.hpp"
#include "recipe/schema.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::recipe {

void Decoder::decode_slurm(MapReader& top) {
    Slurm& s = m_r.slurm;
    const catalog::SlurmDefaults& t = m_r.target.slurm;
    if (const Node* n = top.get("slurm")) {
        MapReader sr(*n, "slurm", m_d);
        sr.read("partition", s.partition);
        sr.read("account", s.account);
        sr.read("qos", s.qos);
        read_checked(sr, "time", s.time, slurm_time_problem, slurm_time_forms());
        sr.read("exclusive", s.exclusive);
        sr.read("mem", s.mem);
        sr.read("use_gres", s.use_gres);
        sr.read("constraint", s.constraint);
        sr.read("network", s.network);
        sr.read("job_name_prefix", s.job_name_prefix);
        sr.read("cpus_per_task", s.cpus_per_task, 0);
        sr.read("segment", s.segment, 0, 1024);
        decode_slurm_knobs(sr, s);
        sr.finish();
    }
    // Unset values come from the target.
    if (s.partition.empty()) s.partition = t.partition;
    if (s.account.empty()) s.account = t.account;
    if (s.time.empty()) s.time = t.time;
    if (!s.exclusive) s.exclusive = t.exclusive;
    if (s.mem.empty()) s.mem = t.mem;
    if (!s.use_gres) s.use_gres = t.use_gres;
    if (s.cpus_per_task == 0) s.cpus_per_task = t.cpus_per_task;
}

// Reads a string key and reports `problem(value)` at it.
bool Decoder::read_checked(MapReader& r, std::string_view key, std::string& out,
                           std::string (*problem)(std::string_view), std::string_view expected) {
    if (!r.read(key, out)) return false;
    if (std::string p = problem(out); !p.empty()) {
        m_d.error(r.get(key)->where, r.key_path(key), p, std::string(expected));
        return false;
    }
    return true;
}

void Decoder::read_checked_list(MapReader& r, std::string_view key, std::vector<std::string>& out,
                                std::string (*problem)(std::string_view), std::string_view expected) {
    if (!r.read(key, out)) return;
    const Node* n = r.get(key);
    for (std::size_t i = 0; i < out.size(); ++i)
        if (std::string p = problem(out[i]); !p.empty())
            m_d.error(n->items[i].where, fmt::format("{}[{}]", r.key_path(key), i), p, std::string(expected));
}

// Placement and pass-through knobs: host lists, reservation, extra #SBATCH lines and srun arguments.
void Decoder::decode_slurm_knobs(MapReader& sr, Slurm& s) {
    read_checked(sr, "nodelist", s.nodelist, hostlist_problem, "a Slurm host list such as 'gpu-[1-4],gpu-7'");
    read_checked(sr, "exclude", s.exclude, hostlist_problem, "a Slurm host list such as 'gpu-[1-4],gpu-7'");
    read_checked(sr, "reservation", s.reservation, slurm_name_problem, "a reservation name");
    read_checked_list(sr, "directives", s.directives, sbatch_directive_problem,
                      "one sbatch option per item, such as '--gres-flags=enforce-binding'");
    read_checked_list(sr, "srun_args", s.srun_args, srun_argument_problem,
                      "one srun option per item, such as '--mpi=pmix'");
}

void Decoder::decode_kubernetes(MapReader& top) {
    Kubernetes& k = m_r.kubernetes;
    if (const Node* n = top.get("kubernetes")) {
        MapReader kr(*n, "kubernetes", m_d);
        kr.read("namespace", k.namespace_name);
        kr.read("queue", k.queue);
        kr.read("service_account", k.service_account);
        kr.read("image_pull_secrets", k.image_pull_secrets);
        kr.read("results_pvc", k.results_pvc);
        kr.read("results_bucket", k.results_bucket);
        if (const Node* in = kr.get("install")) {
            kr.read("install", k.install);
            if (k.install != "kubectl" && k.install != "helm")
                m_d.error(in->where, "kubernetes.install", fmt::format("unknown install method '{}'", k.install),
                          "'kubectl' (apply the manifests) or 'helm' (install the chart)",
                          did_you_mean(k.install, {"kubectl", "helm"}));
        }
        if (const Node* ns = kr.get("node_selector")) {
            if (!ns->is_map()) {
                yaml::type_error(m_d, *ns, "kubernetes.node_selector", "a map of label: value");
            } else {
                for (const yaml::Entry& e : ns->entries)
                    if (auto v = yaml::as_string(e.value, "kubernetes.node_selector." + e.key, m_d))
                        k.node_selector[e.key] = *v;
            }
        }
        kr.finish();
    }
    if (k.namespace_name.empty()) k.namespace_name = m_r.target.kubernetes.namespace_name;
    if (k.queue.empty()) k.queue = m_r.target.kubernetes.queue;
    if (k.node_selector.empty()) k.node_selector = m_r.target.kubernetes.node_selector;
}

void Decoder::decode_stages(MapReader& top) {
    const Node* n = top.get("stages");
    if (!n) return;
    if (!n->is_sequence()) {
        yaml::type_error(m_d, *n, "stages", "a list of {name, kind, dependency, options}");
        return;
    }
    const std::vector<std::string>& kinds = stage_kind_names();
    for (std::size_t i = 0; i < n->items.size(); ++i) {
        std::string k = fmt::format("stages[{}]", i);
        MapReader sr(n->items[i], k, m_d);
        if (!sr.valid()) continue;
        Stage s;
        s.where = n->items[i].where;
        if (sr.require("name", "a stage name such as 'train'")) sr.read("name", s.name);
        if (!sr.read_enum("kind", s.kind, kinds)) {
            if (!sr.get("kind") && std::find(kinds.begin(), kinds.end(), s.name) != kinds.end())
                s.kind = s.name;
            else if (!sr.get("kind"))
                sr.require("kind", fmt::format("one of {}", quoted_list(kinds)));
        }
        sr.read_enum("dependency", s.dependency, {"afterok", "afterany", "afternotok", "none"});
        read_checked(sr, "time", s.time, slurm_time_problem, slurm_time_forms());
        sr.read("mem", s.mem);
        if (const Node* o = sr.get("options")) {
            if (!o->is_map())
                yaml::type_error(m_d, *o, k + ".options", "a map of stage settings");
            else
                s.options = yaml::to_json(*o);
        }
        sr.finish();
        for (const Stage& other : m_r.stages)
            if (!s.name.empty() && other.name == s.name)
                m_d.error(s.where, k + ".name", fmt::format("duplicate stage name '{}'", s.name), "unique stage names");
        m_r.stages.push_back(std::move(s));
    }
}

}  // namespace trainbench::recipe
