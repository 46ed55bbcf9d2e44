/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where the disk cache lives, and whether it may live there: the one place that creates, checks and
 * names its directories.
 *
 * <p>Why a class of its own: the cache must never touch what it did not create (a user who points
 * {@code cache.disk.dir} at {@code /tmp} or a data directory keeps every file and mode), nor adopt what
 * someone else created (another user who made the directory first could read this user's blocks or
 * plant their own). So the cache keeps its files in a directory of its own, {@value #OWN_NAME}, under
 * {@code cache.disk.dir}, marked by a file {@value #MARKER} that names the format; scans and deletions
 * look nowhere else.
 *
 * <p>The rules, checked without following a final symlink (as ssh checks its key files):
 * <ul>
 *   <li>{@code cache.disk.dir} is created (0700) if missing. If it exists it must be a directory, not a
 *       symlink, owned by this user or root, and if group or others may write to it, it must have the
 *       sticky bit (as {@code /tmp} has: then nobody else can rename or remove what this user made in
 *       it). Its mode is never changed.
 *   <li>{@value #OWN_NAME} is created atomically with mode 0700 and then marked. If it exists it must be
 *       a directory, not a symlink, owned by this user, with no permission for group or others, and hold
 *       the marker (or be empty: a creation interrupted before the marker was written).
 *   <li>Anything else is refused: the cache is off, with one warning naming the directory, its owner and
 *       what to do. Nothing is chmodded, nothing deleted.
 * </ul>
 * Where the file system has no POSIX attributes (Windows), only the symlink and marker checks apply.
 */
final class CacheDirectory {
  /** The cache's own directory under {@code cache.disk.dir}; a new block format gets a new name. */
  static final String OWN_NAME = "slipstream-blocks-v" + BlockFile.FORMAT;
  static final String MARKER = ".slipstream-cache";
  static final String MARKER_TEXT = "Slipstream disk cache, block format " + BlockFile.FORMAT
      + ". Slipstream creates and deletes the files in this directory; it touches nothing outside it.\n";

  private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
  private static final int STICKY = 01000;
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  /** The mode bits of {@link #GROUP_OR_OTHERS}. */
  private static final int GROUP_OR_OTHERS_BITS = 077;
  private static final int UID_UNKNOWN = -2;

  /** The directory may not be used: the message says which, whose, and what to do. */
  static final class Refused extends IOException {
    Refused(String message) {
      super(message);
    }
  }

  private final Path root;
  private final Path own;
  private final boolean posix;
  private volatile UserPrincipal me;
  /** This JVM's user id; -1 where it cannot be known; {@link #UID_UNKNOWN} before it is looked up. */
  private volatile int myUid = UID_UNKNOWN;

  CacheDirectory(Path root) {
    this.root = root;
    this.own = root.resolve(OWN_NAME);
    this.posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  /** {@code cache.disk.dir} as configured. */
  Path root() {
    return root;
  }

  /** The directory holding the cache's files. */
  Path own() {
    return own;
  }

  Path blockFile(String name) {
    return own.resolve(BlockFile.shard(name)).resolve(BlockFile.fileName(name));
  }

  /**
   * Makes the cache's directory ready, creating what is missing, checking what exists.
   *
   * @throws Refused if an existing directory may not be used (never retried in this JVM)
   * @throws IOException if it cannot be created now (a read-only or missing parent): worth another try
   */
  void prepare() throws IOException {
    if (!exists(root)) {
      try {
        createDirectories(root);
      } catch (FileAlreadyExistsException e) {
        // made by someone else just now: checked below like any existing directory
      }
    }
    checkRoot();
    try {
      createPrivate(own);
      writeMarker();
      return;
    } catch (FileAlreadyExistsException e) {
      // it exists: check it
    }
    checkOwn();
  }

  /**
   * Checks, before each use, that {@link #own} is still the private directory of this user it was (one
   * lstat): a tmp cleaner may delete it, and someone may then plant a symlink or a directory of theirs
   * in its place.
   *
   * @throws NoSuchFileException if it is gone (it may be made again by {@link #prepare})
   * @throws Refused if something else now stands there
   */
  void checkStill() throws IOException {
    if (!posix) {
      if (Files.isSymbolicLink(own)) {
        throw new Refused(own + " was replaced by a symbolic link while in use; it is neither used nor changed.");
      }
      return;
    }
    if (stillOurs()) {
      return;
    }
    PosixFileAttributes a = attributes(own); // NoSuchFileException if gone
    if (a.isSymbolicLink() || !a.isDirectory() || !a.owner().equals(me())
        || a.permissions().stream().anyMatch(GROUP_OR_OTHERS::contains)) {
      throw new Refused(own + " was replaced while in use (now " + (a.isSymbolicLink() ? "a symbolic link"
          : a.isDirectory() ? "a directory" : "a file") + " of " + a.owner().getName() + ", mode "
          + PosixFilePermissions.toString(a.permissions()) + "); it is neither used nor changed. Remove it, or set"
          + " cache.disk.dir to a directory of your own.");
    }
  }

  /**
   * The check of {@link #checkStill} on numbers alone, as it runs on every block the disk cache reads or
   * writes: {@link #own} is still a directory of this JVM's user id that no one else may use. Comparing
   * owners by {@link UserPrincipal} asks the system for the owner's name ({@code getpwuid}) each time, which
   * is a lookup in a directory service on many clusters. False when it cannot tell (no {@code unix}
   * attribute view, or no {@code /proc/self}), or the directory is not as it should be: the full check then
   * decides, and says what is wrong.
   */
  private boolean stillOurs() throws IOException {
    int uid = myUid();
    if (uid < 0) {
      return false;
    }
    java.util.Map<String, Object> a;
    try {
      a = Files.readAttributes(own, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS); // NoSuchFileException if gone
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      myUid = -1;
      return false;
    }
    int mode = (Integer) a.get("mode");
    return (Integer) a.get("uid") == uid && (mode & S_IFMT) == S_IFDIR && (mode & GROUP_OR_OTHERS_BITS) == 0;
  }

  private int myUid() {
    int u = myUid;
    if (u == UID_UNKNOWN) {
      try {
        u = uid(Path.of("/proc/self").toRealPath()); // the process's own directory: its owner runs this JVM
      } catch (IOException | RuntimeException e) {
        u = -1;
      }
      myUid = u;
    }
    return u;
  }

  /** The shard directory of block {@code name}, created if missing; NoSuchFileException if {@link #own} is gone. */
  Path shardFor(String name) throws IOException {
    checkStill();
    Path shard = own.resolve(BlockFile.shard(name));
    try {
      createPrivate(shard);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(shard, LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(shard + " is not a directory");
      }
    }
    return shard;
  }

  /** The shard directories of {@link #own}: real directories with a shard's name; others are not the cache's. */
  DirectoryStream<Path> shards() throws IOException {
    return Files.newDirectoryStream(own,
        p -> BlockFile.isShard(p.getFileName().toString()) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS));
  }

  boolean ownExists() {
    return Files.isDirectory(own, LinkOption.NOFOLLOW_LINKS);
  }

  /** Mode 0600 for a new cache file, where the file system has POSIX permissions. */
  FileAttribute<?>[] fileAttributes() {
    return posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PRIVATE_FILE)}
        : new FileAttribute<?>[0];
  }

  // ---- checks ------------------------------------------------------------------------------------

  private void checkRoot() throws IOException {
    if (Files.isSymbolicLink(root)) {
      throw new Refused(root + " (cache.disk.dir) is a symbolic link; the disk cache never follows one. Set"
          + " cache.disk.dir to the real directory.");
    }
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new Refused(root + " (cache.disk.dir) is not a directory. Set cache.disk.dir to a directory.");
    }
    if (!posix) {
      return;
    }
    PosixFileAttributes a = attributes(root);
    UserPrincipal me = me();
    if (!a.owner().equals(me) && uid(root) != 0) {
      throw new Refused(root + " (cache.disk.dir) is owned by " + a.owner().getName() + ", not by " + me.getName()
          + " who runs this JVM; it is neither used nor changed. Set cache.disk.dir to a directory of your own.");
    }
    boolean writableByOthers = a.permissions().contains(PosixFilePermission.GROUP_WRITE)
        || a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
    if (writableByOthers && !sticky(root)) {
      throw new Refused(root + " (cache.disk.dir, owner " + a.owner().getName() + ", mode "
          + PosixFilePermissions.toString(a.permissions()) + ") may be written by other users and has no sticky"
          + " bit, so they could replace the cache's directory; it is neither used nor changed. Set"
          + " cache.disk.dir to a directory only you can write to.");
    }
  }

  private void checkOwn() throws IOException {
    if (Files.isSymbolicLink(own)) {
      throw new Refused(own + " is a symbolic link, not a directory the disk cache made; it is neither used nor"
          + " changed. Remove it, or set cache.disk.dir to a directory of your own.");
    }
    if (!Files.isDirectory(own, LinkOption.NOFOLLOW_LINKS)) {
      throw new Refused(own + " exists and is not a directory; it is neither used nor changed. Remove it, or set"
          + " cache.disk.dir to another directory.");
    }
    if (posix) {
      PosixFileAttributes a = attributes(own);
      UserPrincipal me = me();
      if (!a.owner().equals(me)) {
        throw new Refused(own + " is owned by " + a.owner().getName() + ", not by " + me.getName() + " who runs"
            + " this JVM; it is neither used nor changed. Remove it (as its owner), or set cache.disk.dir to a"
            + " directory of your own.");
      }
      Set<PosixFilePermission> open = EnumSet.copyOf(a.permissions());
      open.retainAll(GROUP_OR_OTHERS);
      if (!open.isEmpty()) {
        throw new Refused(own + " (owner " + a.owner().getName() + ", mode "
            + PosixFilePermissions.toString(a.permissions()) + ") is open to other users, and the disk cache"
            + " made it 0700; it is neither used nor changed. Remove it, or make it private (chmod 700) if you"
            + " trust what is in it.");
      }
    }
    Path marker = own.resolve(MARKER);
    if (Files.isRegularFile(marker, LinkOption.NOFOLLOW_LINKS)) {
      if (!MARKER_TEXT.equals(readSmall(marker))) {
        throw new Refused(marker + " does not name this block format; the directory is neither used nor"
            + " changed. Remove it, or set cache.disk.dir to another directory.");
      }
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(own)) {
      if (entries.iterator().hasNext()) {
        throw new Refused(own + " has no " + MARKER + " file, so the disk cache did not make it; it is neither"
            + " used nor changed. Remove it, or set cache.disk.dir to another directory.");
      }
    }
    writeMarker(); // an empty private directory of this user: a creation interrupted before its marker
  }

  // ---- creating ----------------------------------------------------------------------------------

  private void createPrivate(Path dir) throws IOException {
    if (posix) {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
    } else {
      Files.createDirectory(dir);
    }
  }

  private void createDirectories(Path dir) throws IOException {
    if (posix) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
    } else {
      Files.createDirectories(dir);
    }
  }

  private void writeMarker() throws IOException {
    Path marker = own.resolve(MARKER);
    try (SeekableByteChannel ch = Files.newByteChannel(marker, Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE), fileAttributes())) {
      ch.write(java.nio.ByteBuffer.wrap(MARKER_TEXT.getBytes(StandardCharsets.UTF_8)));
    } catch (FileAlreadyExistsException e) {
      // another process of this user marked it first
    }
  }

  // ---- attributes --------------------------------------------------------------------------------

  private static boolean exists(Path p) {
    return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
  }

  private static PosixFileAttributes attributes(Path p) throws IOException {
    return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  private static int uid(Path p) {
    try {
      return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static boolean sticky(Path p) {
    try {
      return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & STICKY) != 0;
    } catch (IOException | RuntimeException e) {
      return false; // cannot tell: treated as not sticky, which refuses
    }
  }

  private UserPrincipal me() throws IOException {
    UserPrincipal m = me;
    if (m == null) {
      m = currentUser();
      me = m;
    }
    return m;
  }

  /** The user this JVM runs as: the owner of its own /proc entry on Linux, else by {@code user.name}. */
  static UserPrincipal currentUser() throws IOException {
    Path self = Path.of("/proc/self");
    if (Files.isDirectory(self)) {
      return Files.getOwner(self);
    }
    return FileSystems.getDefault().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
  }

  private static String readSmall(Path p) {
    try (SeekableByteChannel ch = Files.newByteChannel(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (ch.size() > 4096) {
        return null;
      }
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) ch.size());
      while (b.hasRemaining() && ch.read(b) >= 0) {
        // reading
      }
      return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
