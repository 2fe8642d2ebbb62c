//! Shell completions and the man page, generated from the clap definitions that parse the
//! arguments ([`super::args::cli`]), so they never disagree with `--help`.

use std::io::Write;

use clap_mangen::roff::{Roff, roman};

use super::args::{self, cli};
use super::{EXIT_FAILURE, EXIT_OK, dropin};

/// Writes the completion script for `shell` to `out`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    let mut cmd = cli();
    clap_complete::generate(shell, &mut cmd, "pgo-merge", out);
}

/// `pgo-merge completions SHELL`: prints the script.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut buf = Vec::new();
    write_completions(shell, &mut buf);
    finish(std::io::stdout().lock().write_all(&buf))
}

/// The man page (roff): the tool, its default command's options, then one section per
/// command with its synopsis and options, the exit status and the environment.
pub fn write_man(out: &mut dyn Write) -> std::io::Result<()> {
    let cmd = cli();
    let man = clap_mangen::Man::new(cmd.clone())
        .title("PGO-MERGE")
        .section("1")
        .manual("pgo-merge manual");
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    let mut intro = Roff::default();
    intro.control("PP", []);
    intro.text([roman(
        "Without a command, pgo-merge merges: `pgo-merge IN... -o OUT` is `pgo-merge merge \
         IN... -o OUT`. The options below are those of merge; each command has its own, \
         listed in its section.",
    )]);
    intro.to_writer(out)?;
    man.render_options_section(out)?;
    // The commands, each in a section of its own.
    let mut list = Roff::default();
    list.control("SH", ["COMMANDS"]);
    for name in args::SUBCOMMANDS {
        let about = match cmd.find_subcommand(name).and_then(|s| s.get_about()) {
            Some(a) => a.to_string(),
            None => "Print the help of pgo-merge or of the given command".into(),
        };
        list.control("TP", []);
        list.text([roman(format!("pgo-merge {name}"))]);
        list.text([roman(about)]);
    }
    list.to_writer(out)?;
    for name in args::SUBCOMMANDS.iter().filter(|n| **n != "help") {
        let sub = args::subcommand(name);
        let mut head = Roff::default();
        head.control(
            "SH",
            [format!("PGO-MERGE {}", name.to_uppercase()).as_str()],
        );
        head.to_writer(out)?;
        let man = clap_mangen::Man::new(sub);
        // The command's own sections become subsections of its section.
        let mut body = Vec::new();
        man.render_synopsis_section(&mut body)?;
        man.render_description_section(&mut body)?;
        // merge's options are the OPTIONS above.
        if *name != "merge" {
            man.render_options_section(&mut body)?;
        }
        let body = String::from_utf8_lossy(&body).replace("\n.SH ", "\n.SS ");
        let body = body
            .strip_prefix(".SH ")
            .map_or(body.clone(), |b| format!(".SS {b}"));
        out.write_all(body.as_bytes())?;
    }
    let mut tail = Roff::default();
    tail.control("SH", ["EXIT STATUS"]);
    tail.text([roman(args::EXIT_CODES)]);
    tail.control("SH", ["ENVIRONMENT"]);
    tail.control("TP", []);
    tail.text([roman(dropin::TARGET_ENV)]);
    tail.text([roman(format!(
        "Run as llvm-profdata (a link named llvm-profdata), the LLVM major version merge \
         writes for, when the name carries none (llvm-profdata-19 writes for LLVM 19). \
         Without either, merge writes what LLVM {} and later read.",
        dropin::DEFAULT_LLVM
    ))]);
    tail.control("SH", ["SEE ALSO"]);
    tail.text([roman("llvm-profdata(1), clang(1), rustc(1)")]);
    tail.to_writer(out)?;
    man.render_version_section(out)
}

/// The man page as one roff document (each part clap_mangen renders repeats roff's
/// preamble; it is kept once).
pub fn man_page() -> std::io::Result<String> {
    const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let mut buf = Vec::new();
    write_man(&mut buf)?;
    let page = String::from_utf8_lossy(&buf).into_owned();
    Ok(match page.find(PREAMBLE) {
        Some(at) => {
            let (head, rest) = page.split_at(at + PREAMBLE.len());
            format!("{head}{}", rest.replace(PREAMBLE, ""))
        }
        None => page,
    })
}

/// `pgo-merge man`: prints the man page.
pub fn man() -> i32 {
    match man_page() {
        Ok(page) => finish(std::io::stdout().lock().write_all(page.as_bytes())),
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            EXIT_FAILURE
        }
    }
}

/// The exit code of writing to standard output (a closed pipe is no error).
fn finish(r: std::io::Result<()>) -> i32 {
    match r {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("pgo-merge: error: standard output: {e}");
            EXIT_FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn man_page_names_every_command() {
        let page = man_page().unwrap();
        assert_eq!(page.matches(".ds Aq").count(), 2, "one preamble");
        assert!(page.contains(".TH PGO-MERGE 1"), "{}", &page[..200]);
        for name in args::SUBCOMMANDS {
            assert!(page.contains(&format!("pgo\\-merge {name}")), "{name}");
        }
    }
}
