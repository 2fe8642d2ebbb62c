//! The completion scripts of `pgo-merge completions SHELL`, installed where each shell looks
//! for them and run by the real shell: bash through the function its `complete` line names
//! (with `COMP_WORDS` and `COMP_CWORD` set as bash sets them), zsh in a pseudo-terminal
//! (`zpty`) with the completion system loaded and a key bound to `complete-word`, fish through
//! `complete --do-complete`. Each typed line must complete to what pgo-merge accepts there.
//!
//! The shells are Debian packages (`bash`, `zsh`, `fish`; `.ci/run` installs them): a missing
//! one is SKIPPED, or fails the test when PGO_MERGE_REQUIRE_TOOLS=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{assert_ok, run_ours, tempdir, tool};

/// A line typed before <TAB>, and what it must complete to.
struct Case {
    /// The command line up to the cursor (a trailing space starts a new word).
    line: &'static str,
    /// Completions that must be offered.
    want: &'static [&'static str],
    /// Completions that must not be.
    not: &'static [&'static str],
    /// Whether `want` is the whole list.
    exact: bool,
}

/// The commands, as the first word.
const COMMANDS: &[&str] = &[
    "merge",
    "show",
    "overlap",
    "symbolize",
    "completions",
    "man",
];

/// What every shell must complete. The cases after an input check that merge, the default
/// command, completes its options and values after its inputs, where no command can come.
const CASES: &[Case] = &[
    Case {
        line: "pgo-merge ",
        want: COMMANDS,
        not: &[],
        exact: false,
    },
    Case {
        line: "pgo-merge show --",
        want: &[
            "--all-functions",
            "--counts",
            "--json",
            "--covered",
            "--topn",
        ],
        not: &["--failure-mode", "--output-format", "--similarity-cutoff"],
        exact: false,
    },
    Case {
        line: "pgo-merge show in.profdata --cov",
        want: &["--covered"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge overlap --",
        want: &["--value-cutoff", "--similarity-cutoff", "--cs"],
        not: &["--failure-mode", "--all-functions"],
        exact: false,
    },
    Case {
        line: "pgo-merge merge --failure-mode ",
        want: &["all", "any", "warn"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge merge a.profraw b.profraw --output-format ",
        want: &["iprof", "profdata", "proftext"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge --failure-mode ",
        want: &["all", "any", "warn"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge a.profraw b.profraw --output-format ",
        want: &["iprof", "profdata", "proftext"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge --fail",
        want: &["--failure-mode"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge a.profraw --fail",
        want: &["--failure-mode"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge a.profraw show --",
        want: &["--failure-mode", "--output-format"],
        not: &["--all-functions"],
        exact: false,
    },
    Case {
        line: "pgo-merge symbolize --output-format ",
        want: &["folded", "iprof"],
        not: &[],
        exact: true,
    },
    Case {
        line: "pgo-merge completions ",
        want: &["bash", "fish", "zsh"],
        not: &[],
        exact: false,
    },
    Case {
        line: "pgo-merge help ",
        want: COMMANDS,
        not: &[],
        exact: false,
    },
];

/// Writes `pgo-merge completions SHELL` to `dir/name`.
fn install(shell: &str, dir: &Path, name: &str) -> PathBuf {
    let out = run_ours(["completions", shell]);
    assert_ok(&out, &format!("completions {shell}"));
    let path = dir.join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// Runs a shell (under `timeout`, so that a script that makes it wait fails the test instead
/// of hanging it) in the empty directory `cwd`, with a home of its own beside it (no user's
/// settings are read, nothing is written outside the test's directory), and returns its
/// standard output.
fn run_shell(cwd: &Path, shell: &Path, args: &[&std::ffi::OsStr]) -> String {
    let home = cwd.with_file_name("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("timeout")
        .arg("60")
        .arg(shell)
        .args(args)
        .current_dir(cwd)
        .env("PATH", path_with_ours())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("TERM", "dumb")
        .output()
        .expect("run timeout");
    assert_ok(&out, &format!("{} {args:?}", shell.display()));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// PATH with our binary's folder first: fish loads a command's completions only for a
/// command it finds.
fn path_with_ours() -> std::ffi::OsString {
    let ours = Path::new(env!("CARGO_BIN_EXE_pgo-merge")).parent().unwrap();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(ours.to_path_buf()).chain(std::env::split_paths(&rest)))
        .unwrap()
}

/// Checks the completions `got` a shell offered for `case`.
fn check(shell: &str, case: &Case, mut got: Vec<String>) {
    got.sort();
    got.dedup();
    for w in case.want {
        assert!(
            got.iter().any(|g| g == w),
            "{shell}: `{}<TAB>` does not offer {w}; it offers {got:?}",
            case.line
        );
    }
    for w in case.not {
        assert!(
            !got.iter().any(|g| g == w),
            "{shell}: `{}<TAB>` offers {w}, which is not an option there; it offers {got:?}",
            case.line
        );
    }
    if case.exact {
        let mut want: Vec<&str> = case.want.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{shell}: `{}<TAB>`", case.line);
    }
}

/// bash: the script sourced as bash-completion loads it, the function that
/// `complete -p pgo-merge` names called as bash calls it, and `COMPREPLY` printed.
const BASH_DRIVER: &str = r#"
source "$1" || exit 3
shift
spec=$(complete -p pgo-merge) || exit 4
fn=${spec#*-F }
fn=${fn%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

#[test]
fn bash_completes_commands_options_and_values() {
    let Some(bash) = tool("bash", "bash_completes_commands_options_and_values") else {
        return;
    };
    let dir = tempdir();
    let script = install("bash", dir.path(), "pgo-merge.bash");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    for case in CASES {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--norc".as_ref(),
            "--noprofile".as_ref(),
            "-c".as_ref(),
            BASH_DRIVER.as_ref(),
            "bash".as_ref(),
            script.as_os_str(),
        ];
        args.extend(case.line.split(' ').map(std::ffi::OsStr::new));
        let out = run_shell(&cwd, &bash, &args);
        let got = out.lines().filter(|l| !l.is_empty()).map(str::to_string);
        check("bash", case, got.collect());
    }
}

/// zsh: an interactive zsh in a pseudo-terminal (`zpty`) loads the script from `fpath` by
/// its `#compdef` line (`compinit`), the line is typed and ^T runs `complete-word`; every
/// match the completion functions add is printed, marked, as it is added. The markers are
/// written split in two (`MA""TCH`), so that the terminal's echo of the definitions does not
/// carry them.
const ZSH_DRIVER: &str = r#"
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; unsetopt AUTO_LIST AUTO_MENU LIST_BEEP BEEP"
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi; local -a m; builtin compadd -O m "$@"; local x; for x in $m; do print -r -- "<<MA""TCH>>$x"; done; builtin compadd "$@"; }'
zpty -w z 'comptest () { zle complete-word; print -r -- "<<E""ND>>"; }'
zpty -w z 'zle -N comptest; bindkey "^T" comptest'
zpty -w -n z "$2"$'\x14'
zpty -r z out '*<<END>>*' || exit 4
print -r -- "$out"
zpty -d z
"#;

#[test]
fn zsh_completes_commands_options_and_values() {
    let Some(zsh) = tool("zsh", "zsh_completes_commands_options_and_values") else {
        return;
    };
    let dir = tempdir();
    let functions = dir.path().join("functions");
    std::fs::create_dir(&functions).unwrap();
    // Where zsh looks: a file named after the function, `_pgo-merge`, in a folder of fpath.
    install("zsh", &functions, "_pgo-merge");
    let driver = dir.path().join("driver.zsh");
    std::fs::write(&driver, ZSH_DRIVER).unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    for case in CASES {
        let out = run_shell(
            &cwd,
            &zsh,
            &[
                "-f".as_ref(),
                driver.as_os_str(),
                functions.as_os_str(),
                case.line.as_ref(),
            ],
        );
        let got = out
            .lines()
            .filter_map(|l| l.split_once("<<MATCH>>"))
            .map(|(_, m)| m.trim().to_string())
            .collect();
        check("zsh", case, got);
    }
}

#[test]
fn fish_completes_commands_options_and_values() {
    let Some(fish) = tool("fish", "fish_completes_commands_options_and_values") else {
        return;
    };
    let dir = tempdir();
    // Where fish looks: `pgo-merge.fish` in a folder of fish_complete_path, loaded when
    // pgo-merge is first completed.
    let completions = dir.path().join("completions");
    std::fs::create_dir(&completions).unwrap();
    install("fish", &completions, "pgo-merge.fish");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    for case in CASES {
        let out = run_shell(
            &cwd,
            &fish,
            &[
                "--no-config".as_ref(),
                "-c".as_ref(),
                "set -p fish_complete_path $argv[1]; complete --do-complete $argv[2]".as_ref(),
                completions.as_os_str(),
                case.line.as_ref(),
            ],
        );
        let got = out
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect();
        check("fish", case, got);
    }
}
