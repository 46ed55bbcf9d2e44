/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import software.amazon.awssdk.core.exception.SdkException;

/** Turns a failure into the one line the user sees and the exit code. */
final class Errors {
  /** Success. */
  static final int OK = 0;
  /** An I/O error: missing object, access denied, network, local file. */
  static final int IO = 1;
  /** A usage or configuration error. */
  static final int USAGE = 2;
  /** Standard output was closed by the reader (SIGPIPE's conventional status). */
  static final int BROKEN_PIPE = 141;

  private Errors() {}

  /** The message (one line, without the {@code slipstream: } prefix) and exit code of a failure. */
  record Report(String message, int exitCode) {}

  static Report report(Throwable t) {
    if (t instanceof UncheckedIOException u && u.getCause() != null) {
      t = u.getCause();
    }
    if (t instanceof UsageException || t instanceof IllegalArgumentException) {
      return new Report(message(t), USAGE);
    }
    if (t instanceof Transfer.OutputFailedException o && o.brokenPipe()) {
      return new Report(null, BROKEN_PIPE);
    }
    String credentials = missingCredentials(t);
    if (credentials != null) {
      return new Report(credentials, IO);
    }
    if (t instanceof FileSystemException fse) {
      return new Report(fileMessage(fse), IO);
    }
    if (t instanceof IOException || t instanceof SdkException) {
      return new Report(message(t), IO);
    }
    return new Report(t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + oneLine(t.getMessage())), IO);
  }

  private static String fileMessage(FileSystemException e) {
    if (e.getReason() != null) {
      // S3 errors come as AccessDeniedException(s3://bucket/key, null, "access denied (403 ...) ...")
      return message(e);
    }
    String file = e.getFile();
    if (e instanceof NoSuchFileException) {
      return file + ": no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return file + ": permission denied";
    }
    if (e instanceof FileAlreadyExistsException) {
      return file + ": already exists";
    }
    if (e instanceof NotDirectoryException) {
      return file + ": not a directory";
    }
    return message(e);
  }

  /** The AWS SDK's long explanation that no credentials were found, shortened to what to do. */
  private static String missingCredentials(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (c instanceof SdkException && m != null && m.contains("Unable to load credentials")) {
        return "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, use an AWS profile"
            + " (AWS_PROFILE), or pass -D access.key=... -D secret.key=...";
      }
    }
    return null;
  }

  private static String message(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return oneLine(m);
  }

  static String oneLine(String m) {
    int nl = m.indexOf('\n');
    String line = (nl >= 0 ? m.substring(0, nl) : m).strip();
    return line.isEmpty() ? m.strip() : line;
  }
}
