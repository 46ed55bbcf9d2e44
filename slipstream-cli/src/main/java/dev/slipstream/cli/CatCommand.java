/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code slipstream cat s3://bucket/key...}. */
@Command(name = "cat", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Write S3 objects to standard output.")
final class CatCommand implements Callable<Integer> {
  @ParentCommand
  SlipstreamCli cli;

  @Parameters(arity = "1..*", paramLabel = "S3_URI", description = "The objects: s3://bucket/key.")
  List<String> sources = new ArrayList<>();

  @Mixin
  S3Options s3;

  @Override
  public Integer call() throws Exception {
    List<S3Location> locations = new ArrayList<>();
    for (String s : sources) {
      locations.add(S3Options.location(s));
    }
    var config = s3.toConfig();
    OutputStream out = new Transfer.StdoutStream(cli.stdout());
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      for (S3Location location : locations) {
        try (SlipstreamInputStream in = client.open(location)) {
          Transfer.copy(in, out, new AtomicLong());
        }
      }
    } catch (Exception e) {
      try {
        out.flush(); // what was read before the failure still goes out, as cat does
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    out.flush();
    return Errors.OK;
  }
}
