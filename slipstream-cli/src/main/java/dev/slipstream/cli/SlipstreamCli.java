/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code slipstream} command. {@link #main} runs it on the process's streams and exits with its
 * status; tests create an instance over their own streams and call {@link #execute}.
 *
 * <p>Exit status: 0 on success; 1 for an I/O error (no such object, bucket or prefix, access denied,
 * network, local file); 2 for a usage or configuration error (a bad S3 URI among them). Errors are one line on stderr, {@code slipstream:
 * <message>}; {@code --debug} adds the stack trace.
 */
@Command(name = "slipstream", mixinStandardHelpOptions = true, versionProvider = SlipstreamCli.Version.class,
    sortOptions = false,
    description = "Fast reads from S3 and S3-compatible object stores: parallel ranged GETs, prefetched"
        + " ahead of the reader.",
    subcommands = {CpCommand.class, CatCommand.class, LsCommand.class, DuCommand.class, DemoCommand.class,
        BenchCommand.class, LoadCommand.class, CommandLine.HelpCommand.class},
    footer = {"",
        "Try 'slipstream demo' to see the difference prefetching makes, with nothing to set up,",
        "and 'slipstream bench' to compare Slipstream with S3A's streams on this machine.",
        "",
        "Credentials come from the AWS SDK's default chain (environment, profile, instance",
        "role) unless -D access.key=... -D secret.key=... are given.",
        "",
        "Exit status: 0 success; 1 I/O error (no such object, bucket or prefix, access denied,",
        "network); 2 usage or configuration error (a bad S3 URI among them)."})
public final class SlipstreamCli implements Callable<Integer> {
  @Option(names = "--debug", description = "Print stack traces of errors and Slipstream's debug log.")
  boolean debug;

  private final OutputStream stdout;
  private final PrintStream stdoutText;
  private final PrintStream stderr;
  private final Charset charset = consoleCharset();
  private final boolean terminal;

  /**
   * @param stdout where object bytes ({@code cat}) and reports ({@code demo}) go
   * @param stderr where progress, summaries and errors go
   * @param terminal whether stderr is an interactive terminal: progress is redrawn in place
   */
  public SlipstreamCli(OutputStream stdout, PrintStream stderr, boolean terminal) {
    this.stdout = Objects.requireNonNull(stdout, "stdout");
    this.stderr = Objects.requireNonNull(stderr, "stderr");
    this.stdoutText = new PrintStream(stdout, true, charset);
    this.terminal = terminal;
  }

  public static void main(String[] args) {
    CredentialLoggers.keepQuiet(); // before any logger exists: the wire and signer logs show the session token
    if (Arrays.asList(args).contains("--debug")) {
      // Before the first logger is created; slf4j-simple reads system properties over simplelogger.properties.
      System.setProperty("org.slf4j.simpleLogger.log.dev.slipstream", "debug");
    }
    OutputStream out = new FileOutputStream(FileDescriptor.out);
    int status = new SlipstreamCli(out, System.err, System.console() != null).execute(args);
    System.exit(status);
  }

  /** Runs the command line {@code args} and returns the exit status. */
  public int execute(String... args) {
    CommandLine cmd = new CommandLine(this);
    cmd.setOut(new PrintWriter(new OutputStreamWriter(stdoutText, charset), true));
    cmd.setErr(new PrintWriter(new OutputStreamWriter(stderr, charset), true));
    cmd.setParameterExceptionHandler(this::onUsageError);
    cmd.setExecutionExceptionHandler((e, c, parseResult) -> onFailure(e, parseResult));
    String[] keys = S3Options.keysFooter();
    for (String name : new String[] {"cp", "cat", "ls", "du"}) {
      CommandLine sub = cmd.getSubcommands().get(name);
      sub.getCommandSpec().usageMessage().footer(keys);
    }
    int status = cmd.execute(args);
    stdoutText.flush();
    stderr.flush();
    return status;
  }

  /** Without a command: the usage, on stderr, and the usage-error status. */
  @Override
  public Integer call() {
    stderr.println("slipstream: missing command (cp, cat, ls, du, demo, bench, load)");
    stderr.println("Try 'slipstream --help' for more information.");
    return Errors.USAGE;
  }

  OutputStream stdout() {
    return stdout;
  }

  PrintStream stdoutText() {
    return stdoutText;
  }

  PrintStream stderr() {
    return stderr;
  }

  /** The console's charset, in which text on stdout is written. */
  Charset charset() {
    return charset;
  }

  boolean terminal() {
    return terminal;
  }

  private int onUsageError(ParameterException e, String[] args) {
    CommandLine c = e.getCommandLine();
    stderr.println("slipstream: " + Errors.oneLine(String.valueOf(e.getMessage())));
    PrintWriter err = c.getErr();
    UnmatchedArgumentException.printSuggestions(e, err);
    err.flush();
    stderr.println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
    stderr.flush();
    return Errors.USAGE;
  }

  private int onFailure(Exception e, ParseResult parseResult) {
    Errors.Report report = Errors.report(e);
    if (report.message() != null) {
      stderr.println("slipstream: " + report.message());
    }
    if (debugRequested(parseResult)) {
      e.printStackTrace(stderr);
    }
    stderr.flush();
    return report.exitCode();
  }

  private static boolean debugRequested(ParseResult parseResult) {
    for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--debug")) {
        return true;
      }
    }
    return false;
  }

  private static Charset consoleCharset() {
    String enc = System.getProperty("stdout.encoding", System.getProperty("sun.stdout.encoding"));
    try {
      return enc != null ? Charset.forName(enc) : Charset.defaultCharset();
    } catch (RuntimeException e) {
      return StandardCharsets.UTF_8;
    }
  }

  /** {@code slipstream 0.1.0 (Java 17.0.15, OpenJDK 64-Bit Server VM)}. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = "unknown";
      try (InputStream in = SlipstreamCli.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          Properties p = new Properties();
          p.load(in);
          version = p.getProperty("version", version);
        }
      } catch (IOException e) {
        // keep "unknown"
      }
      return new String[] {"slipstream " + version + " (Java " + System.getProperty("java.version") + ", "
          + System.getProperty("java.vm.name") + ")"};
    }
  }
}
