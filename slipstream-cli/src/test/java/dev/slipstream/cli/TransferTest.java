/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code cp} writes through a temporary file of its own, and deletes only that file. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TransferTest {
  @TempDir Path tmp;

  @Test
  void aFailedCopyDeletesItsOwnTemporaryFileAndLeavesTheTargetAsItWas() throws IOException {
    Path target = tmp.resolve("out.bin");
    Files.writeString(target, "before");
    assertThatThrownBy(() -> Transfer.writeAtomically(target, out -> {
      out.write("half".getBytes(StandardCharsets.UTF_8));
      throw new IOException("the read failed");
    })).hasMessage("the read failed");
    assertThat(target).hasContent("before");
    try (var files = Files.list(tmp)) {
      assertThat(files).containsExactly(target);
    }
  }

  @Test
  void aTemporaryNameAlreadyTakenIsLeftAloneNeverDeleted() throws IOException {
    Path target = tmp.resolve("out.bin");
    Path users = tmp.resolve(".out.bin.slipstream-1234.part");
    Files.writeString(users, "a user's file that happens to have that name");
    assertThatThrownBy(() -> Transfer.writeAtomically(target, users.getFileName().toString(),
        out -> out.write(1))).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(users).hasContent("a user's file that happens to have that name");
    assertThat(target).doesNotExist();
  }

  @Test
  void aSuccessfulCopyLeavesOnlyTheTarget() throws IOException {
    Path target = tmp.resolve("out.bin");
    Transfer.writeAtomically(target, out -> out.write("bytes".getBytes(StandardCharsets.UTF_8)));
    assertThat(target).hasContent("bytes");
    try (var files = Files.list(tmp)) {
      assertThat(files).containsExactly(target);
    }
  }
}
