"""Issue 20's findings at the command line, one by one: every option honoured or refused in one
sentence, paths treated one way by every command, and sentences that say what is wrong."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .support import Cli, assert_one_sentence_error

NATURAL_TIE = ("4H", "2S", "9S", "3D", "7C", "5C")


# --- tracebacks and bad input taken ------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ("risk", "--method", "simulate", "--sessions", "10", "--seed", "-1"),
    ("design", "--cut-card-depth", "14", "--shoes", "10", "--seed", "-1"),
])
def test_a_negative_seed_is_one_sentence_for_every_simulation(cli: Cli, args: tuple[str, ...]
                                                              ) -> None:
    assert_one_sentence_error(cli(*args), mentions="--seed takes a whole number from 0")


@pytest.mark.parametrize("stake", ["nan", "inf", "-inf"])
def test_risk_refuses_a_stake_that_is_no_amount(cli: Cli, stake: str) -> None:
    assert_one_sentence_error(cli("risk", "--coups", "10", "--stake", stake), mentions="--stake")
    run = cli("risk", "--coups", "10", "--stake", stake, "--json")
    assert_one_sentence_error(run)
    assert "Infinity" not in run.out and "NaN" not in run.out


@pytest.mark.parametrize("name", ["r.txt", "noext"])
def test_risk_plot_writes_the_png_it_names_or_says_why_not(cli: Cli, tmp_path: Path,
                                                           name: str) -> None:
    run = cli("risk", "--coups", "10", "--plot", str(tmp_path / name))
    assert_one_sentence_error(run, mentions="--plot writes a .png file")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ("par", "-o", "{absent}/par.txt"), ("eor", "-o", "{absent}/eor.txt"),
    ("design", "--bet", "egalite", "-o", "{absent}/design.txt"),
    ("risk", "--coups", "10", "--plot", "{absent}/risk.png"),
    ("count", "--shoes", "2", "--out", "{absent}/plots"),
])
def test_every_command_refuses_a_missing_folder_the_same_way(cli: Cli, tmp_path: Path,
                                                             args: tuple[str, ...]) -> None:
    absent = tmp_path / "absent"
    run = cli(*(arg.format(absent=absent) for arg in args))
    assert_one_sentence_error(run, mentions=f"the folder {absent} does not exist")
    assert run.err.startswith("puntobanco: Cannot write ")
    assert not absent.exists()


@pytest.mark.parametrize(("args", "what"), [
    (("replay", "--lang", "en", "--cards-file"), "the cards file"),
    (("verify", "--shoe-file"), "the shoe file")])
def test_every_command_says_the_same_of_a_file_it_cannot_read(
        cli: Cli, tmp_path: Path, args: tuple[str, ...], what: str) -> None:
    missing = tmp_path / "missing.txt"
    assert_one_sentence_error(cli(*args, str(missing)),
                              mentions=f"Cannot read {what} '{missing}': No such file or "
                                       "directory.")
    assert_one_sentence_error(cli(*args, str(tmp_path)),
                              mentions=f"Cannot read {what} '{tmp_path}': it is a folder.")


def test_serve_refuses_a_database_in_a_missing_folder(cli: Cli, tmp_path: Path) -> None:
    absent = tmp_path / "absent"
    run = cli("serve", "--database-url", f"sqlite:///{absent}/x.sqlite3", "--port", "1")
    assert_one_sentence_error(run, mentions=f"the folder {absent} does not exist")
    assert not absent.exists()


def test_operator_password_in_an_empty_folder_creates_no_database(
        cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = cli("operator-password", "--generate")
    assert_one_sentence_error(run, mentions="There is no database at var/puntobanco.sqlite3")
    assert list(tmp_path.iterdir()) == []
    # a file that is no server's database is neither migrated nor told it lacks an operator
    sqlite3.connect(tmp_path / "other.sqlite3").close()
    run = cli("operator-password", "--generate", "--database-url",
              f"sqlite:///{tmp_path / 'other.sqlite3'}")
    assert_one_sentence_error(run, mentions="This database has no operator yet")
    with sqlite3.connect(tmp_path / "other.sqlite3") as connection:
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == []


@pytest.mark.parametrize(("args", "named"), [
    (("--composition", "1,2,3,4,5,6,7,8,9,10"), "--composition"),
    (("--banco", "commission", "--commission", "4%"), "--banco, --commission"),
    (("--tie-pays", "9"), "--tie-pays"),
])
def test_par_compare_refuses_the_options_it_does_not_honour(cli: Cli, args: tuple[str, ...],
                                                            named: str) -> None:
    assert_one_sentence_error(cli("par", "--compare", *args),
                              mentions=f"par --compare sets each game with its own pays over "
                                       f"full shoes: {named}")


@pytest.mark.parametrize("command", [("par",), ("design", "--bet", "banco"), ("risk",)])
def test_commission_without_a_commission_table_is_refused(cli: Cli,
                                                          command: tuple[str, ...]) -> None:
    assert_one_sentence_error(cli(*command, "--commission", "4%"),
                              mentions="--commission applies only with --banco commission")


@pytest.mark.parametrize("option", [("--sessions", "100"), ("--seed", "3"), ("--cut-card", "20")])
def test_risk_exact_refuses_the_simulation_s_options(cli: Cli, option: tuple[str, str]) -> None:
    assert_one_sentence_error(cli("risk", "--coups", "10", *option),
                              mentions=f"{option[0]} applies only with --method simulate.")


@pytest.mark.parametrize("command", [("play",), ("replay", *NATURAL_TIE)])
def test_commission_without_a_commission_table_is_refused_in_the_table_s_language(
        cli: Cli, command: tuple[str, ...]) -> None:
    assert_one_sentence_error(cli(*command, "--lang", "it", "--commission", "4%", stdin="q\n"),
                              mentions="--commission 4% si applica solo con --banco commission.")


def test_play_names_the_seats_typed(cli: Cli) -> None:
    assert_one_sentence_error(cli("play", "--lang", "en", "--seats", "-7", stdin="q\n"),
                              mentions="A table has 1 to 14 seats, not -7.")


def test_the_last_seat_leaving_deals_no_coup(cli: Cli) -> None:
    run = cli("play", "--lang", "en", "--seed", "4", "--fast", stdin="b 25\nq\n")
    assert run.code == 0, run.err
    assert "Coups played: 1." in run.out
    assert run.out.count("No more bets") == 1


@pytest.mark.parametrize(("args", "mentions"), [
    (("--bet", "banco", "--half-pays"), "--half-pays applies only to --bet lion."),
    (("--bet", "egalite", "--max-pay", "40", "--side", "both"),
     "--side, --max-pay apply only to --bet lion."),
    (("--bet", "lion", "--commissions", "4%"), "--commissions applies only to --bet banco."),
    (("--tie-pays-grid", "8,9"), "--tie-pays-grid applies only to --bet egalite."),
    (("--seed", "3"), "--seed applies only with --cut-card-depth."),
    (("--bet", "banco", "--half-totals", "0:12:1"), "--half-totals cannot take 0: Banco wins "
     "with a total of 1 to 9."),
    (("--bet", "banco", "--half-totals", "10"), "--half-totals cannot take 10"),
    (("--bet", "egalite", "--tie-pays-grid", "-5:10:1"), "--tie-pays-grid cannot take -5"),
    (("--bet", "banco", "--commissions", "0:1:0.5"), "--commissions cannot take 1"),
    (("--max-pay", "99999999999999999999999"), "--max-pay takes 1 to 1000"),
    (("--min-hit", "1e400"), "--min-hit cannot take"),
    (("--natural-win", "1e400"), "--natural-win cannot take"),
    (("--target", "1e400"), "not a house edge"),
])
def test_design_refuses_what_it_cannot_apply(cli: Cli, args: tuple[str, ...],
                                             mentions: str) -> None:
    assert_one_sentence_error(cli("design", *args), mentions=mentions)


@pytest.mark.parametrize(("option", "value"), [
    ("--result-seconds", "1e9"), ("--card-seconds", "nan"), ("--closed-seconds", "-1")])
def test_serve_refuses_a_pause_no_table_could_keep(cli: Cli, option: str, value: str) -> None:
    assert_one_sentence_error(cli("serve", option, value),
                              mentions=f"{option} is a pause of 0 to 60 seconds")


@pytest.mark.parametrize("command", [("play", "--lang", "en"),
                                     ("replay", "--lang", "en", *NATURAL_TIE)])
def test_M1_limits_that_are_not_whole_chips_are_refused(cli: Cli, command: tuple[str, ...]
                                                        ) -> None:
    run = cli(*command, "--chip", "7", "--limit", "banco=14-98", stdin="q\n")
    assert_one_sentence_error(run, mentions="With a €7 chip every limit is a whole number of "
                                            "chips (M1); punto €10–5,000 is not")
    run = cli(*command, "--chip", "5", "--limit", "banco=10-101", stdin="q\n")
    assert_one_sentence_error(run, mentions="banco €10–101 is not")


def test_serve_workers_and_simulate_workers_are_bounded(cli: Cli) -> None:
    assert_one_sentence_error(cli("simulate", "--workers", "99999999999999999999999"),
                              mentions="--workers takes 1 to 64")
    assert_one_sentence_error(cli("count", "--shoes", "2000000000"), mentions="--shoes takes 2 to")


# --- misleading sentences ----------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "mentions"), [
    ("en", "too large an amount"), ("fr", "Montant trop grand"), ("it", "troppo grande")])
def test_a_huge_bankroll_is_said_to_be_too_large(cli: Cli, lang: str, mentions: str) -> None:
    run = cli("play", "--lang", lang, "--bankroll", "99999999999999999999999", stdin="q\n")
    assert_one_sentence_error(run, mentions=mentions)
    assert "decimal" not in run.err and "décimal" not in run.err


def test_verify_says_a_file_without_a_commitment_is_no_shoe(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "shoe.json"
    path.write_text("{}")
    run = cli("verify", "--shoe-file", str(path))
    assert_one_sentence_error(run, mentions="is not a shoe as GET /api/shoes/{id} returns it")
    assert "not revealed" not in run.err


def test_serve_on_an_address_of_another_machine_names_the_host(cli: Cli) -> None:
    run = cli("serve", "--host", "8.8.8.8", "--port", "18999")
    assert_one_sentence_error(run, mentions="it is not an address of this machine; choose "
                                            "another --host")
    assert "--port" not in run.err


@pytest.mark.parametrize(("lang", "mentions"), [
    ("fr", "La carte de coupe se place de 12 à 300 cartes de la fin (S3), pas 5."),
    ("es", "La carta de corte va de 12 a 300 cartas del final (S3), no 5.")])
def test_the_cut_card_is_refused_in_the_table_s_language(cli: Cli, lang: str,
                                                         mentions: str) -> None:
    assert_one_sentence_error(cli("play", "--lang", lang, "--cut-card", "5", stdin="q\n"),
                              mentions=mentions)


def test_english_refusals_write_euros_the_english_way(cli: Cli) -> None:
    run = cli("replay", "--lang", "en", *NATURAL_TIE, "--bet", "lion-banco=60")
    assert_one_sentence_error(run, mentions="The maximum on lion-banco is €50.00; €60.00 is "
                                            "above it.")


def test_M1_a_decimal_comma_is_read_at_a_french_table_and_checked_against_the_chip(
        cli: Cli) -> None:
    refused = cli("replay", "--lang", "fr", *NATURAL_TIE, "--bet", "banco=10,50")
    assert_one_sentence_error(refused, mentions="multiple de la plus petite plaque")
    taken = cli("replay", "--lang", "fr", "--chip", "0,50", "--json", *NATURAL_TIE,
                "--bet", "banco=10,50", "--bet", "egalite=10")
    assert taken.code == 0, taken.err
    assert json.loads(taken.out)["settlement"][0]["stake"] == 1050
    spots = cli("replay", "--lang", "it", "--chip", "0,50", "--json", *NATURAL_TIE,
                "--spot", "Ann:banco=10,50,lion-banco=10")
    assert spots.code == 0, spots.err
    assert [line["stake"] for line in json.loads(spots.out)["spots"][0]["settlement"]] == [
        1050, 1000]


def test_the_readme_s_decimal_comma_bet_is_taken_at_the_table_it_names(cli: Cli) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`banco 10,50` the French, Italian or Spanish way at a table with 50-cent chips " \
           "(`--chip 0,50`: every stake" in " ".join(readme.split())
    run = cli("play", "--lang", "fr", "--chip", "0,50", "--seed", "4", "--fast", "--coups", "1",
              stdin="banco 10,50\n")
    assert run.code == 0, run.err
    assert "✓ Banco 10,50 €" in run.out
