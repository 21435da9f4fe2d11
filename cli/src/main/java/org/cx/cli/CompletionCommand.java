package org.cx.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;

/** {@code cx completion}: a bash/zsh completion script for every command and option, made by Picocli. */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Prints a completion script for bash and zsh.",
            "Load it in this shell with  source <(cx completion)  or save it as a file under",
            "/etc/bash_completion.d/ (or ~/.local/share/bash-completion/completions/cx) for every shell."})
final class CompletionCommand extends Printing implements Callable<Integer> {

    @Override
    public Integer call() {
        out().print(AutoComplete.bash("cx", spec.root().commandLine()));
        out().flush();
        return 0;
    }
}
