package org.cx.cli;

import picocli.CommandLine.Command;

/** {@code cx bench}: the benchmarks. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks: Fibonacci, recovery, code distribution, EP, the paper's experiments, data, many "
                + "consumers, divide and conquer, the Ninf paper's Linpack, memory per task.",
        subcommands = {BenchFibCommand.class, BenchRecoveryCommand.class, BenchCodeCommand.class,
            BenchEpCommand.class, BenchEstimateCommand.class, BenchPaperCommand.class, BenchDataCommand.class,
            BenchMultiCommand.class, BenchDcCommand.class, BenchNinfCommand.class, BenchThermostatCommand.class,
            BenchFsCommand.class, BenchSwCommand.class, BenchAccountingCommand.class, BenchWebCommand.class, BenchMemoryCommand.class})
final class BenchCommand extends Group {

}
