//! The `glovebox` binary; the command line itself is `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
