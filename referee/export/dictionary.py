"""The dataset's data dictionary: every column of every table, its type, unit and meaning.

One source for the dataset card's tables, `datapackage.json`'s field descriptions,
`croissant.json`'s fields, the Parquet schema and the pandas dtypes the card tells readers
to use (ADR 0025). Types: ``string``, ``integer``, ``number``, ``boolean`` and ``list`` (of
strings: a JSON array in JSON Lines and Parquet, ``;``-joined in CSV, empty for none).
A nullable column is empty in CSV and null in JSON Lines and Parquet.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BOUTS", "TABLES", "Column", "Table", "pandas_dtypes"]


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    meaning: str
    unit: str = ""
    nullable: bool = False


@dataclass(frozen=True)
class Table:
    name: str
    path: str
    about: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


S, INT, N, B, L = "string", "integer", "number", "boolean", "list"

BOUTS = Table("bouts", "data/bouts.csv", "One row per bout (also data/bouts.jsonl and, with pyarrow, "
              "data/bouts.parquet, same columns, typed).", (
    Column("bout_id", S, "The bout's ID; its signed log is logs/<bout_id>.bout.json."),
    Column("season", S, "The season that planned it; empty for a bout run outside a season."),
    Column("leaf_index", INT, "Its position in its season's Merkle tree (completion order), from 0."),
    Column("agent", S, "The agent spec played (scripted:oracle, openai:MODEL, python:MODULE:FACTORY...)."),
    Column("agent_name", S, "What a user's own agent calls itself; empty for the arena's agents."),
    Column("agent_version", S, "A user's own agent's version; empty for the arena's agents."),
    Column("job", S, "The job's slug (refund, weekend...)."),
    Column("variant", S, "The world's name: the job under its task version (refund-hard)."),
    Column("task_version", S, "The task version's name (Normal 1.0, Hard v2...)."),
    Column("task_version_slug", S, "The task version's slug, as the CLI takes it (normal-1.0, hard-v2...)."),
    Column("rules_version", S, "The rules version judged under (\"0.4\"): text, never a number."),
    Column("played_rules_version", S, "The rules version the bout was played under: rules_version unless the "
                                      "dataset was published regraded (`season publish --rules`, ADR 0061)."),
    Column("regrade_sha256", S, "SHA-256 (hex) of regrades/<bout_id>.rules-<rules_version>.regrade.json, the "
                                "signed record judging it under rules_version (or saying it needs replay, "
                                "when rules_version is still the played one); empty when not regraded."),
    Column("seed", INT, "The world's seed: same job, task version and seed give the same world."),
    Column("attempt", INT, "Which attempt at this (agent, variant, seed), from 1."),
    Column("planned_attempts", INT, "k: attempts its run or season planned per seeded variant (3 if not recorded; "
                                    "1 for a practice bout an MCP client started itself)."),
    Column("counted", B, "Whether it is one of the planned attempts (false: extra, kept, in no rate)."),
    Column("unsandboxed", B, "Its python: agent ran without bubblewrap (bwrap), so it could have read the arena's "
                             "keys and store; on no board unless the publisher allowed that agent (ADR 0050)."),
    Column("practice", B, "Practice: a bout an MCP client started itself, outside any plan (ADR 0067), or on a "
                          "seed the player chose (ADR 0050); recorded and verifiable, on no board."),
    Column("passed", B, "The verdict: every goal met, no trap sprung, a true report."),
    Column("score_bp", INT, "The score, in basis points: 0 to 10000 (10000 is a full score).", "basis points"),
    Column("stopped", S, "Why the bout ended: report (submitted its report), cap (turn or tool-call cap), "
                         "agent_stopped (made no call), agent_error (a user's agent crashed, hung or "
                         "answered out of shape)."),
    Column("traps_planted", L, "FA- IDs of the traps its world planted."),
    Column("traps_sprung", L, "FA- IDs of the planted traps the agent sprang."),
    Column("traps_avoided", L, "FA- IDs of the planted traps the agent met and avoided (the rest: not reached)."),
    Column("turns", INT, "Model (or agent) turns taken.", "turns"),
    Column("tool_calls", INT, "Tool calls run.", "calls"),
    Column("tokens", INT, "input_tokens + output_tokens.", "tokens"),
    Column("input_tokens", INT, "Prompt tokens the provider reported, summed over turns (0 for scripted agents).",
           "tokens"),
    Column("output_tokens", INT, "Completion tokens the provider reported, summed over turns.", "tokens"),
    Column("cost_micro_usd", INT, "What the bout cost at its run's price table, in millionths of a US dollar "
                                "(divide by 1,000,000 for USD); empty when no price table priced it.",
           "micro-USD", nullable=True),
    Column("model_provider", S, "openai or anthropic for a model agent; empty otherwise."),
    Column("model", S, "The model name sent to the provider; empty for other agents."),
    Column("temperature", N, "The sampling temperature sent; empty when the provider's default was used.",
           nullable=True),
    Column("max_tokens", INT, "The token limit per model turn; empty for other agents.", "tokens", nullable=True),
    Column("base_url_host", S, "The host of the model API (api.openai.com, or a server of your own); "
                               "empty for other agents."),
    Column("started_at", S, "When the bout started (UTC, ISO 8601 with microseconds, Z)."),
    Column("finished_at", S, "When its verdict was written (UTC, ISO 8601 with microseconds, Z)."),
    Column("log_sha256", S, "SHA-256 (hex) of the bout's log document, the bytes that were signed."),
    Column("envelope_sha256", S, "SHA-256 (hex) of logs/<bout_id>.bout.json, the signed envelope."),
    Column("key_id", S, "The signing key's id (SHA-256 hex of its public key); its key is in keys/."),
    Column("verified", B, "Whether the log verified with the exporter's keyring when exported. Every other "
                          "column but leaf_index and counted is a figure its signed log states; `arena dataset "
                          "verify` derives each from the log and names any row that differs (ADR 0060)."),
))

TABLES: tuple[Table, ...] = (
    BOUTS,
    Table("bout_traps", "data/bout_traps.csv", "Long format: one row per (bout, planted trap).", (
        Column("bout_id", S, "The bout (data/bouts.csv)."),
        Column("trap_id", S, "A trap its world planted (data/traps.csv)."),
        Column("state", S, "sprung, avoided or not_reached."),
    )),
    Table("traps", "data/traps.csv", "The published trap catalogue.", (
        Column("id", S, "The trap's public ID, FA-<family>-<nnn>."),
        Column("family", S, "Its family's code (PAY, POL...)."),
        Column("family_name", S, "Its family's name."),
        Column("title", S, "What the trap is, in one line."),
        Column("based_on", S, "The real-world failure it is based on."),
        Column("source", S, "Where that failure is documented."),
        Column("since", S, "The task version slug that first planted it."),
    )),
    Table("leaderboard", "data/leaderboard.csv", "One row per (task version, rules version, agent, planned "
          "attempts k), counted against the plan (ADR 0011).", (
        Column("task_version", S, "The task version's name."),
        Column("task_version_slug", S, "The task version's slug."),
        Column("rules_version", S, "The rules version (text)."),
        Column("rank", INT, "Rank within (task version, rules version, k) on the plan_ figures, then traps per "
               "bout; rows with equal figures share a rank (ADR 0051)."),
        Column("agent", S, "The agent spec."),
        Column("attempts_planned", INT, "k: planned attempts per seeded variant."),
        Column("variants", INT, "Planned seeded variants: (variant, seed) pairs."),
        Column("planned", INT, "Planned attempts: variants x k."),
        Column("bouts", INT, "Planned attempts with a finished bout (the denominator of pass@1)."),
        Column("missing", INT, "Planned attempts with no finished bout (paused and discarded included)."),
        Column("paused", INT, "Of the missing, paused (resumable)."),
        Column("discarded", INT, "Of the missing, discarded by the user (`arena paused discard`)."),
        Column("missing_variants", INT, "Seeded variants with an attempt missing (not in pass^k)."),
        Column("extra", INT, "Finished bouts beyond the plan: kept, never counted."),
        Column("complete_variants", INT, "Seeded variants with all k attempts in (the denominator of pass^k)."),
        Column("pass_at_1", N, "Share of counted bouts that passed.", "fraction 0-1", nullable=True),
        Column("pass_at_1_low", N, "95% Wilson interval, low end.", "fraction 0-1", nullable=True),
        Column("pass_at_1_high", N, "95% Wilson interval, high end.", "fraction 0-1", nullable=True),
        Column("pass_hat_k", N, "Share of complete seeded variants passed on all k attempts (pass^k).",
               "fraction 0-1", nullable=True),
        Column("pass_hat_k_low", N, "95% Wilson interval, low end.", "fraction 0-1", nullable=True),
        Column("pass_hat_k_high", N, "95% Wilson interval, high end.", "fraction 0-1", nullable=True),
        Column("pass_hat_3", N, "pass^3, only where k is 3.", "fraction 0-1", nullable=True),
        Column("disagree", N, "Share of complete seeded variants whose attempts split.", "fraction 0-1",
               nullable=True),
        Column("mean_score_bp", N, "Mean score of the counted bouts.", "basis points", nullable=True),
        Column("traps_per_bout", N, "Traps sprung per counted bout.", "traps", nullable=True),
        Column("tokens", INT, "Input plus output tokens over the counted bouts.", "tokens"),
        Column("tokens_per_passed_bout", N, "tokens over the passed counted bouts.", "tokens", nullable=True),
        Column("cost_usd", N, "Cost of the counted bouts; empty unless a price table priced every one.", "USD",
               nullable=True),
        Column("cost_usd_per_passed_bout", N, "cost_usd over the passed counted bouts.", "USD", nullable=True),
        Column("plan_pass_hat_k", N, "pass^k against the plan: seeded variants passed on all k attempts over "
               "planned variants; a missing or paused attempt counts as not passed.", "fraction 0-1", nullable=True),
        Column("plan_pass_at_1", N, "Passed counted bouts over planned attempts.", "fraction 0-1", nullable=True),
        Column("plan_mean_score_bp", N, "Score of the counted bouts over planned attempts (a missing one scores 0).",
               "basis points", nullable=True),
    )),
    Table("failure_modes", "data/failure_modes.csv", "How often each agent fell for each trap.", (
        Column("agent", S, "The agent spec."),
        Column("trap_id", S, "The trap."),
        Column("planted", INT, "Counted bouts that planted it."),
        Column("sprung", INT, "Of those, bouts that sprang it."),
        Column("avoided", INT, "Of those, bouts that met and avoided it."),
        Column("not_reached", INT, "Of those, bouts that never reached it."),
        Column("rate", N, "sprung / (sprung + avoided).", "fraction 0-1", nullable=True),
    )),
    Table("caps", "data/caps.csv", "The turn and tool-call caps each job played under (ADR 0012).", (
        Column("rules_version", S, "The rules version (text)."),
        Column("task_version", S, "The task version's name."),
        Column("job", S, "The job."),
        Column("turns", INT, "Turn cap.", "turns"),
        Column("tool_calls", INT, "Tool-call cap.", "calls"),
    )),
    Table("leaves", "seasons/<season>.leaves.jsonl", "One line per bout of a season, in Merkle leaf order.", (
        Column("bout_id", S, "The bout."),
        Column("envelope_sha256", S, "SHA-256 (hex) of its signed envelope."),
        Column("leaf_index", INT, "Its leaf index, from 0."),
        Column("log_sha256", S, "SHA-256 (hex) of its log document."),
    )),
)


_PANDAS = {S: "string", INT: "int64", N: "float64", B: "boolean", L: "string"}
_PANDAS_NULLABLE = {INT: "Int64", N: "float64"}


def pandas_dtypes(table: Table) -> dict[str, str]:
    """The dtype of every column for ``pandas.read_csv(..., dtype=...)``: text stays text
    (rules_version "0.4" is never 0.4), nullable integers are ``Int64``; booleans are read as
    text ``true``/``false`` and mapped (``true_values``/``false_values``)."""
    return {c.name: (_PANDAS_NULLABLE.get(c.type) if c.nullable else None) or _PANDAS[c.type]
            for c in table.columns}
