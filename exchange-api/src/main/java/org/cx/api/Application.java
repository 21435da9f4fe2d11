package org.cx.api;

/**
 * The entry point of an application jar run with {@code cx submit app.jar [args…]}. The launcher ships the jar as
 * the computations' code bundle (no producer needs it installed), connects to the network, and calls {@link #run}
 * with a connected task server; the jar names its implementation in its manifest as {@code CX-Application} (or
 * {@code Main-Class}), or the user names it with {@code --main-class}. Needs a public no-argument constructor.
 */
public interface Application {

    /**
     * Runs the application: submit computations to {@code server} and wait for their results.
     *
     * @param args the arguments after the jar on the command line
     * @return the process exit status (0 for success)
     */
    int run(TaskServer server, String[] args) throws Exception;
}
