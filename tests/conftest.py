"""Shared test fixtures: the reference data beside the checkout (skip cleanly when absent)."""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# hypothesis keeps its files (a cache of the constants in the code it reads, unicode tables) in a
# temporary folder, removed at exit, not in .hypothesis/ of the working directory; set before it
# writes anything (it reads the variable at its first write). No test writes into the checkout.
HYPOTHESIS_DIR = tempfile.mkdtemp(prefix="nlgmetrics-hypothesis-")
atexit.register(shutil.rmtree, HYPOTHESIS_DIR, ignore_errors=True)
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", HYPOTHESIS_DIR)
# and no example database
settings.register_profile("nlgmetrics", database=None)
settings.load_profile("nlgmetrics")

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "shared" / "tools"  # scripts that rebuild shipped data (not installed): import training.<name>
if str(TOOLS) not in sys.path:
    sys.path.append(str(TOOLS))
SHARED = Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


#: tests left out of the edit-test loop (pytest -m "not slow"), by node id prefix or name part:
#: browsers, torchrun and other subprocesses, real models, evaluate loading by name, memory and
#: thread stress (chosen from --durations; the full suite still runs them)
SLOW = ("tests/spaces/test_browser.py", "tests/core/test_memory.py", "tests/core/test_threads.py",
        "tests/integrations/test_evaluate_by_name.py", "tests/tools/test_publish.py", "tests/golden/",
        # evaluate's Evaluator and its bootstrap with every module (2-23 s each, transformers 4.57)
        "tests/integrations/test_evaluator.py::test_generated_outputs", "tests/integrations/test_evaluator.py::test_the_evaluator_runs",
        "tests/rome/test_scorer.py", "tests/integrations/test_distributed.py::test_torchrun",
        "tests/cli/test_commands.py::test_a_real_process", "tests/cli/test_commands.py::test_a_closed_stdout",
        "tests/cli/test_commands.py::test_cli_distributed", "tests/cli/test_commands.py::test_warnings_print_as_one_line",
        "tests/integrations/test_distributed.py::test_real_metrics", "tests/integrations/test_distributed.py::test_sam_given",
        "tests/discotk/test_rst_formats.py::test_too_deep_rst_trees", "tests/benchmarks/test_streaming.py::test_streamed",
        "tests/discotk/test_robustness.py::test_no_process_wide", "tests/integrations/test_evaluate_plumbing.py::test_evaluate_load",
        "tests/integrations/test_evaluate_plumbing.py::test_cli_score_json", "tests/core/test_doctests.py::test_wrapper_examples",
        "tests/integrations/test_transformers_hook.py::test_compute_metrics_in_seq2seq_trainer",
        # the Space's worker processes (spawned, 5-18 s each)
        "tests/spaces/test_workers.py::test_a_request_past", "tests/spaces/test_workers.py::test_a_newer_request",
        "tests/spaces/test_workers.py::test_a_worker_that_cannot", "tests/spaces/test_workers.py::test_the_workers_start",
        "tests/spaces/test_workers.py::test_a_page_whose",
        # the Spaces' JSON endpoint (models load, apps launch); the TextEval representative (about
        # 1.5 s of CPU) and the README checks stay in the loop
        "tests/spaces/test_api.py::test_the_score_endpoint", "tests/spaces/test_api.py::test_sam_endpoint",
        "tests/spaces/test_api.py::test_a_request", "tests/spaces/test_api.py::test_once_launched",
        # over 5 s each in the loop (pytest --durations): parity on 1,000 WMT pairs (bert_score runs
        # too), the meta-evaluation's simulations, RoMe's grammar classifier on many texts
        "tests/core/test_bertscore_parity.py::test_wmt_pairs",
        "tests/core/test_bertscore_parity.py::test_scores_do_not_depend_on_the_batch_size",
        "tests/rome/test_config.py::test_grammar_relative_on_exact_copies",
        "tests/rome/test_grammar_batching.py::test_the_lite_head_is_bit_identical",
        "tests/meta/test_meta_eval_vs.py::test_item_rank_correlations_and_spa_keep_their_level",
        "tests/meta/test_meta_eval_vs.py::test_acc_eq_keeps_its_level_with_ten_outputs",
        "tests/meta/test_meta_eval_vs.py::test_a_metric_with_less_noise",
        "tests/meta/test_meta_eval_compare_calibration.py",
        "tests/core/test_unicode.py::test_model_metrics_nfd_marks_and_order",
        "tests/cli/test_list_and_demo.py::test_the_demo_prints_the_score_command",
        "tests/integrations/test_transformers_hook.py::test_sources_from_the_inputs_and_a_fixed_list",
        "tests/rome/test_budget.py::test_20000_marks_without_a_space",
        "tests/core/test_budget.py::test_a_text_without_spaces_is_cut_to_at_most_max_units",
        "tests/integrations/test_evaluate_plumbing.py::test_cli_list_and_demo",
        "tests/cli/test_compare.py::test_compare_text_and_json_from_files",
        # the surface harness on the model metrics (RoMe-lite, DiscoTK-party, DATScore's tiny model)
        "tests/surfaces/test_harness.py::test_every_surface_agrees_for_the_model_metrics",
        "tests/core/test_embeddings_batched.py::test_longest_row_batches_give_the_same_vectors",
        "tests/core/test_properties.py::test_lone_surrogate_and_bom_score_like_their_normal_form",
        # 1.7-3.2 s each on an idle machine (the loop's next slowest; the first worker test stays)
        "tests/core/test_resources.py::test_meteor_align_equals_the_pairwise_definition",
        "tests/core/test_resources.py::test_the_embedded_wordnet_reader_answers_as_nltks_own",
        "tests/cli/test_compare.py::test_compare_from_saved_sharded_records_equals_scoring",
        "tests/core/test_caches.py::test_a_cache_of_deep_values_stays_within_its_byte_bound_in_real_memory",
        "tests/core/test_caches.py::test_discotk_analyses_are_accounted_at_the_bytes_python_allocated",
        "tests/core/test_language.py::test_no_false_alarm_on_wmt_to_english",
        "tests/rome/test_parts.py::test_scorer_training_pairs_and_network_are_reproducible",
        "tests/core/test_packed.py::test_a_model_the_probe_rejects_runs_its_own_forward",
        "tests/integrations/test_evaluate_plumbing.py::test_cli_meta_eval",
        "tests/core/test_significance.py::test_discotk_normalisation_is_recomputed_per_resample",
        "tests/meta/test_meta_eval_vs.py::test_equally_good_metrics_are_rejected_about_five_percent",
        # 0.5-2.7 s each (the loop took 108 s, 3ce9d44's 98 s, on the same machine in the same hour)
        "tests/core/test_caches.py::test_spacy_vocabulary_is_renewed_once",
        "tests/core/test_reader.py::test_any_value_reads_back_and_the_count_limit_is_exact",
        "tests/core/test_lazy_exports.py::test_importing_a_package_runs_no_scorer_and_a_star_import_binds_every_export[rome]",
        "tests/cli/test_reduce_no_model.py::test_reduce_loads_no_model_and_equals_the_single_run[rome]",
        "tests/rome/test_network.py::test_two_threads_fit_the_network_once",
        "tests/rome/test_network.py::test_paper_profile_fits_a_network_once",
        "tests/rome/test_network.py::test_trained_network_is_monotone_whatever_the_labels",
        "tests/core/test_packed.py::test_packed_passes_equal_the_models_own_forward[None-64]",
        "tests/core/test_packed.py::test_packed_passes_equal_the_models_own_forward[0-64]",
        "tests/core/test_packed.py::test_packed_passes_equal_the_models_own_forward[3-64]",
        "tests/sam/test_tagger.py::test_lookup_sam_is_finite_and_never_above_the_base",
        "tests/rome/test_ranking.py::test_ranking_only_network_is_monotone_and_ranks",
        "tests/cli/test_tree_files.py::test_folders_paired_by_file_name_score_the_top",
        "tests/discotk/test_weights_training.py::test_rounded_output_is_byte_stable",
        "tests/core/test_unicode.py::test_shuffled_input_order_gives_each_segment_its_score[sam-bleu]",
        "tests/spaces/test_limits.py::test_a_request_over_its_time_stops",
        "tests/discotk/test_scorer.py::test_dependency_overlap_does_not_depend_on_the_hash_seed",
        "tests/discotk/test_scorer.py::test_fit_while_another_thread_reduces",
        "tests/meta/test_meta_eval_vs.py::test_compare_metrics_reports_both_values",
        "tests/discotk/test_rst_real.py::test_a_real_file_scores_the_same_through_auto_rst",
        "tests/meta/test_meta_eval_defects.py::test_one_item_of_many_rows_never_allocates",
        "tests/cli/test_compare.py::test_compare_usage_errors[extra4",
        "tests/meta/test_meta_eval_vs.py::test_compare_metrics_compares_every_statistic",
        "tests/cli/test_meta_eval_mtme.py::test_against_a_metric_and_a_score_file",
        "tests/core/test_record_fields.py::test_rome_records",
        "tests/core/test_caches.py::test_shared_model_survives_while_used",
        "tests/core/test_unicode.py::test_probe_against_its_nfd_form_scores_the_copy[rome-lite]",
        "tests/datscore/test_batching.py::test_token_budget_batches_score_as_fixed_batches",
        "tests/core/test_packed.py::test_packed_passes_equal_the_models_own_forward[3-",
        # 100 command lines of hostile names (50-100 ms each); the Python writer's property stays
        "tests/cli/test_mtme_out_names.py::test_no_name_on_the_command_line_writes_outside_the_output_folder",
        # the surface harness: the toy sixth metric stays in the loop on every surface (and SAM in
        # the count of resolves and builds per surface)
        "tests/surfaces/test_harness.py::test_every_surface_agrees[sam-",
        "tests/surfaces/test_harness.py::test_every_surface_agrees[sam-german-",
        "tests/surfaces/test_harness.py::test_every_surface_agrees[texteval-",
        # 0.5 s or more each (--durations of the loop on 1fb86ea: 175 s for 1,467 tests; then 106 s
        # for 1,329, and the next four: the workers' spawn, 9 s, now with the first worker test)
        "tests/spaces/test_workers.py::test_a_workers_errors_come_back_as_they_are",
        "tests/core/test_budget.py::test_cut_is_a_bounded_prefix_and_idempotent",
        "tests/discotk/test_kernels.py::test_repeated_words_are_counted_not_enumerated",
        "tests/spaces/test_apps.py::test_app_builds_with_settings_from_the_configuration[texteval]",
        # and (101-110 s with pytest's warnings plugin, the README's command) the next: the
        # hypothesis storage check, the SAM harness cases, the toy's page, the apps' example boxes
        "tests/core/test_no_writes.py::test_hypothesis_keeps_its_files_out_of_the_checkout",
        "tests/test_toy_metric.py::test_space_page",
        "tests/spaces/test_apps.py::test_boxes_hold_the_first_example",
        "tests/spaces/test_workers.py::test_a_worker_scores_as_the_server_would_and_returns_the_warnings",
        "tests/meta/test_rank_cli.py::test_rank_reads_published_metrics_and_scores_ours",
        "tests/cli/test_compare.py::test_meta_eval_reports_the_pairwise_and_item_statistics",
        "tests/core/test_packed.py::test_packed_passes_equal_the_models_own_forward",
        "tests/baselines/test_baselines.py::test_any_text_scores_finite_on_the_scale",
        "tests/baselines/test_baselines.py::test_bertscore_equals_bert_score",
        "tests/discotk/test_kernels.py::test_log_domain_kernel_and_overflow",
        "tests/discotk/test_kernels.py::test_fast_kernel_equals_the_recursive_definition_exactly",
        "tests/discotk/test_weights_training.py::test_shipped_weights_count_the_scripts_training_sample",
        "tests/meta/test_rank.py::test_significance_matrix_and_ranks_equal_mt_metrics_eval",
        "tests/spaces/test_api.py::test_texteval_endpoint_warns_refuses_and_names_its_parameters",
        "tests/sam/test_lexicon.py::test_build_script_reproduces_the_shipped_file",
        "tests/core/test_unicode.py::test_shuffled_input_order_gives_each_segment_its_score",
        "tests/spaces/test_api.py::test_each_readme_shows_a_call_the_endpoint_takes",
        "tests/spaces/test_apps.py::test_datscore_app_says_when_its_model_cannot_load",
        "tests/texteval/test_budget.py::test_a_1mb_text_is_cut_and_scored_within_the_budget",
        "tests/meta/test_rank_cli.py::test_published_only_equals_rank_published",
        "tests/core/test_linguistic.py::test_fast_attribute_rules_match_spacys_ruler_token_for_token",
        "tests/discotk/test_rst_real.py::test_written_trees_read_back_equal",
        "tests/core/test_linguistic.py::test_the_parse_cache_is_bounded_by_entries_and_bytes",
        "tests/datscore/test_scorer.py::test_scores_identical_for_batch_sizes_1_3_16",
        "tests/texteval/test_budget.py::test_the_space_drawing_ranks_at_most_the_scored_references_and_each_pair_once",
        "tests/core/test_bertscore_parity.py::test_bert_score_test_pairs",
        "tests/integrations/test_transformers_hook.py::test_batch_eval_metrics_and_unconcatenated_batches_score_as_one_evaluation",
        "tests/cli/test_meta_eval_mtme.py::test_a_sys_score_file_is_the_system_level_human_score",
        "tests/discotk/test_kernels.py::test_equals_brute_force_on_random_trees",
        "tests/meta/test_workbench.py::test_the_cli_scores_an_evalset_and_resumes",
        "tests/integrations/test_evaluate_harness.py::test_doctests_as_evaluates_harness_runs_them",
        "tests/texteval/test_resampling.py::test_each_randomisation_trial_equals_scoring_both_shuffled_corpora_from_scratch",
        "tests/core/test_caches.py::test_resize_evicts_the_least_recent_now_and_live_caches_lists_each_cache",
        "tests/meta/test_rank.py::test_the_figure",
        "tests/sam/test_scale.py::test_adjusted_score_never_rises_with_p",
        "tests/core/test_language.py::test_german_sources_of_wmt21_warn",
        "tests/sam/test_damping.py::test_damping_shrinks_with_n_and_relaxes_with_k",
        "tests/datscore/test_scorer.py::test_fixed_weights_freeze_calibration",
        "tests/integrations/test_transformers_hook.py::test_an_interrupted_batch_evaluation_does_not_leak_into_the_next",
        "tests/discotk/test_robustness.py::test_normalisation_survives_an_overflowing_product_of_self_kernels",
        "tests/sam/test_damping.py::test_damped_score_never_rises_with_p",
        "tests/sam/test_damping.py::test_damped_p_never_exceeds_the_papers",
        "tests/texteval/test_scorer.py::test_bad_inputs_give_finite_scores",
        "tests/sam/test_tagger.py::test_builder_is_deterministic_on_spacy_output",
        "tests/spaces/test_compare_box.py::test_the_sam_space_shows_the_difference_its_interval_and_p_values",
        "tests/cli/test_commands.py::test_meta_eval_system_field_is_a_name_and_rows_without_one_are_counted",
        "tests/core/test_linguistic.py::test_light_mode_gives_the_same_tokens_tags_and_lemmas",
        "tests/cli/test_startup.py::test_cheap_paths_import_no_heavy_library",
        "tests/core/test_budget.py::test_texteval_caps_its_references_and_flags_the_segment",
        "tests/cli/test_meta_eval_mtme.py::test_meta_eval_on_an_evalset_equals_the_same_rows_as_json_lines",
        "tests/core/test_sizes.py::test_no_long_function_without_a_reason",
        "tests/cli/test_startup.py::test_a_usage_error_before_scoring_imports_no_heavy_library",
        "tests/core/test_significance.py::test_the_95_interval_covers_the_true_difference_93_to_97_percent_of_200_simulated_corpora",
        "tests/meta/test_mtme_writer.py::test_concurrent_writers_of_one_score_file_lose_no_system",
        "tests/datscore/test_scorer.py::test_evaluate_module_matches_core_scorer",
        "tests/cli/test_meta_eval_mtme.py::test_one_sided_p_values_are_named_and_half_the_two_sided_williams",
        "tests/integrations/test_evaluate_wrappers.py::test_lone_surrogates_are_replaced_as_in_the_core",)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW) or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption("--update-screenshots", action="store_true", default=False,
                     help="the browser tests write spaces/<name>/screenshot.png (else a temporary directory)")


@pytest.fixture(scope="session")
def screenshot_dir(request, tmp_path_factory) -> Path:
    """Where the browser tests put the Spaces' screenshots: ``spaces/`` with
    ``--update-screenshots``, else a temporary directory (no test writes into the checkout)."""
    if request.config.getoption("--update-screenshots"):
        return ROOT / "spaces"
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip when it is not there."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip("../shared/data is not beside the checkout")
    return path


@pytest.fixture(scope="session")
def tiny_m2m100(tmp_path_factory) -> str:
    """One tiny random M2M-100 (tests/tiny_models.py defaults) for the whole run; tests must
    not write into its directory."""
    tiny_models = pytest.importorskip("tiny_models")
    return tiny_models.build_tiny_m2m100(tmp_path_factory.mktemp("tiny-m2m100"))


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models run faster on one thread (and much faster on a shared, loaded CPU)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def toy_tree_root(tmp_path_factory) -> Path:
    """The toy sixth metric's tree (tests/toy_tree.py), written once per session."""
    from tests.toy_tree import write_tree

    return write_tree(tmp_path_factory.mktemp("toy-tree"))


@pytest.fixture
def toysix(toy_tree_root, monkeypatch) -> Path:
    """The toy sixth metric joined to the registry for one test (its one registry line and its
    tree's folder); its package's folder."""
    from tests.toy_tree import NAME, register

    register(toy_tree_root, monkeypatch)
    return toy_tree_root / NAME
