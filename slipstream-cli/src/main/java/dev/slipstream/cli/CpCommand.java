/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code slipstream cp s3://bucket/key LOCAL_FILE}. */
@Command(name = "cp", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Copy an S3 object to a local file.",
        "Reads with Slipstream's parallel, prefetching ranged GETs. The file is written under a temporary name in the target directory and renamed when complete,"
            + " so a failed copy leaves no partial file. If LOCAL_FILE is a directory, the object is copied"
            + " into it under the last part of its key."})
final class CpCommand implements Callable<Integer> {
  @ParentCommand
  SlipstreamCli cli;

  @Parameters(index = "0", paramLabel = "S3_URI", description = "The object: s3://bucket/key.")
  String source;

  @Parameters(index = "1", paramLabel = "LOCAL_FILE", description = "Where to write it.")
  String target;

  @Option(names = {"-q", "--quiet"}, order = 1, description = "No progress bar (the summary line is still printed).")
  boolean quiet;

  @Mixin
  S3Options s3;

  @Override
  public Integer call() throws Exception {
    if (S3Options.looksLikeS3(target)) {
      throw new UsageException(S3Options.looksLikeS3(source)
          ? "cp copies an S3 object to a local file; '" + target + "' is not a local path"
          : "cp copies an S3 object to a local file; uploads are not supported");
    }
    S3Location location = S3Options.location(source);
    SlipstreamConfig config = s3.toConfig();
    Path dest = destination(location);

    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      long start = System.nanoTime(); // from the first request, the HEAD: setting up the client is not transfer time
      try (SlipstreamInputStream in = client.open(location)) {
        AtomicLong done = new AtomicLong();
        Progress progress = quiet ? null : Progress.start(cli.stderr(), cli.terminal(), "", in.length(), done::get);
        boolean ok = false;
        try {
          Transfer.writeAtomically(dest, out -> Transfer.copy(in, out, done));
          ok = true;
        } finally {
          if (progress != null) {
            progress.stop(ok);
          }
        }
        long nanos = System.nanoTime() - start;
        long bytes = done.get();
        long gets = in.statistics().get(Counter.GET_REQUESTS);
        long retries = in.statistics().get(Counter.RETRIES);
        cli.stderr().printf("Copied %s to %s: %s (%d bytes) in %s = %s, %s, %s%n", location, dest,
            Sizes.binary(bytes), bytes, Sizes.seconds(nanos), Sizes.rate(bytes, nanos),
            Sizes.plural(gets, "GET", "GETs"), Sizes.plural(retries, "retry", "retries"));
        cli.stderr().flush();
      }
    }
    return Errors.OK;
  }

  /** The file to write: {@code target}, or the key's last name inside {@code target} if it is a directory. */
  private Path destination(S3Location location) throws NoSuchFileException {
    Path dest = Paths.get(target);
    if (Files.isDirectory(dest)) {
      String key = location.key();
      String name = key.substring(key.lastIndexOf('/') + 1);
      if (name.isEmpty() || name.equals(".") || name.equals("..")) {
        throw new UsageException("cannot name a file after the key of " + location + "; give a file name");
      }
      dest = dest.resolve(name);
    }
    Path dir = dest.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new NoSuchFileException(String.valueOf(dir), null, "no such directory");
    }
    return dest;
  }
}
