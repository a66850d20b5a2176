// Private to render: the "kubernetes" key of the template context (kubernetes_context.cpp).
#pragma once

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace trainbench::render {

// kubernetes: object names, network stack, queue, lists, results storage, chart; throws
// InputError when the recipe puts the run directory on both a PVC and a bucket, or runs on
// Kubernetes without an image (recipe::validate_recipe reports both with their location).
[[nodiscard]] nlohmann::ordered_json kubernetes_json(const recipe::Recipe& r, const recipe::Stage& stage,
                                                     const std::string& run_id);

// The image a Kubernetes stage runs instead of the recipe's (validate: nccl.build.image;
// prepare-data: image); "" for the recipe's own, and on other schedulers.
[[nodiscard]] std::string kubernetes_stage_image(const recipe::Recipe& r, const recipe::Stage& stage);

}  // namespace trainbench::render
