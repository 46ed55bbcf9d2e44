/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.ListEntry;
import dev.slipstream.Lister;
import dev.slipstream.Listing;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code globStatus} from one flat listing instead of S3A's level-by-level walk (Hadoop's Globber lists
 * every directory a wildcard reaches, one delimiter listing each: {@code /t/dt=* /hr=*} over 17,520
 * partitions is 17,521 listings). The pattern's literal leading components (and the literal head of the
 * first wildcard component: {@code dt=2024-0} of {@code dt=2024-0[1-3]*}) make the prefix listed; the
 * keys under it are folded into a tree of directories (markers {@code dir/} and the directories deeper
 * keys imply, as S3A sees them), and the components are matched level by level with Hadoop's own
 * {@link GlobPattern}, as Globber would against S3A's listings.
 *
 * <p>The result is Globber's: the same statuses (S3A's types, owner, block size, times, ETags), paths
 * built as Globber builds them, the user's filter applied last, sorted. Then the directories matched,
 * and everything under them, are handed to {@link ListingReuse}: FileInputFormat lists each of them
 * next, and gets its answer from this listing.
 *
 * <p>Served only where that is exactly S3A's answer; otherwise {@link #glob} returns null and the
 * caller asks S3A: no wildcard, {@code {a,b/c}} groups spanning components, relative patterns, other
 * schemes or buckets, {@code .}/{@code ..} or {@code :} in names, a literal last component after a
 * wildcard (Globber then asks getFileStatus, a HEAD), a name that is both a file and a directory, empty
 * path components in keys. A listing longer than {@link #MAX_KEYS} keys is abandoned (speculation
 * is bounded: at most {@value #MAX_KEYS} / 1,000 requests wasted), and counted in
 * {@link #fallbacks()}.
 */
final class FlatGlob {
  private static final Logger LOG = LoggerFactory.getLogger(FlatGlob.class);
  /** Most keys one glob lists before it gives up and leaves the pattern to S3A: 200 requests. */
  static final int MAX_KEYS = 200_000;
  /** Characters that may be glob syntax; the literal head of a component stops at the first. */
  private static final String SPECIAL = "\\*?[]{},!^";

  private final ListingCallbacks fs;
  private final Lister lister;
  private final String bucket;
  private final ListingReuse reuse;
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong fallbacks = new AtomicLong();
  private volatile int maxKeys = MAX_KEYS;

  FlatGlob(ListingCallbacks fs, Lister lister, ListingReuse reuse) {
    this.fs = fs;
    this.lister = lister;
    this.bucket = fs.bucket();
    this.reuse = reuse;
  }

  /** Tests: a smaller bound than {@link #MAX_KEYS}. */
  void maxKeys(int keys) {
    this.maxKeys = keys;
  }

  /** Globs answered from a flat listing. */
  long served() {
    return served.get();
  }

  /** Globs whose flat listing was abandoned (too long, or a layout S3A must judge), then left to S3A. */
  long fallbacks() {
    return fallbacks.get();
  }

  /** Globber's answer for {@code pattern}, or null when S3A's own globStatus must answer. */
  FileStatus[] glob(Path pattern, PathFilter filter) throws IOException {
    Plan plan = Plan.of(pattern, fs.uri());
    if (plan == null) {
      return null;
    }
    Path base = new Path(plan.scheme, plan.authority, Path.SEPARATOR);
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < plan.first; i++) {
      base = new Path(base, plan.literals[i]);
      literal.append(i == 0 ? "" : "/").append(plan.literals[i]);
    }
    String baseKey = fs.pathToKey(base);
    if (!baseKey.equals(literal.toString())) {
      return null; // Path made something else of the literal components: S3A decides
    }
    String dirPrefix = baseKey.isEmpty() ? "" : baseKey + "/";
    Node root;
    long generation = reuse.generation();
    try {
      root = list(dirPrefix, dirPrefix + plan.head);
    } catch (Unsuitable e) {
      fallbacks.incrementAndGet();
      LOG.debug("globStatus({}) left to S3A: {}", pattern, e.getMessage());
      return null;
    }
    List<Match> candidates = List.of(new Match(root, base, null));
    S3AStatuses statuses = S3AStatuses.of(fs);
    int last = plan.patterns.length - 1;
    try {
      for (int i = plan.first; i <= last; i++) {
        List<Match> next = new ArrayList<>();
        for (Match c : candidates) {
          if (plan.patterns[i] == null) {
            Node child = c.node.dirs.get(plan.literals[i]);
            if (child != null) {
              next.add(new Match(child, new Path(c.path, plan.literals[i]), null));
            }
            continue;
          }
          GlobPattern p = plan.patterns[i];
          if (i == last) {
            for (ListEntry f : c.node.files) {
              String name = f.key().substring(f.key().lastIndexOf('/') + 1);
              Path path = childPath(c.path, name, f.key());
              if (p.matches(path.getName())) {
                next.add(new Match(null, path, statuses.file(f, path)));
              }
            }
          }
          for (Map.Entry<String, Node> d : c.node.dirs.entrySet()) {
            Path path = childPath(c.path, d.getKey(), d.getValue().key);
            if (p.matches(path.getName())) {
              next.add(new Match(d.getValue(), path, i == last ? statuses.directory(path) : null));
            }
          }
        }
        candidates = next;
      }
    } catch (Unsuitable e) {
      fallbacks.incrementAndGet();
      LOG.debug("globStatus({}) left to S3A: {}", pattern, e.getMessage());
      return null;
    }
    List<FileStatus> results = new ArrayList<>();
    for (Match m : candidates) {
      if (filter.accept(m.path)) {
        results.add(m.status);
        if (m.node != null) {
          reuse.keep(m.node.subtree(), generation);
        }
      }
    }
    FileStatus[] out = results.toArray(new FileStatus[0]);
    Arrays.sort(out);
    served.incrementAndGet();
    return out;
  }

  /**
   * For a walk over sibling directories, one {@code listStatus} each: lists the parent of
   * {@code dirKey} flat from {@code dirKey} on, at most {@code budget} keys in {@code ranges} key ranges,
   * and hands every directory it saw whole ({@code dirKey}'s siblings after it, and everything under
   * them) to {@link ListingReuse}, where the walk's next calls find them. The directory holding the last
   * key listed may go on past the budget and is not kept. {@link Siblings#kept()} false if nothing could
   * be kept for {@code dirKey} (then S3A lists it).
   *
   * @param parentKey the parent's key without trailing slash ({@code ""}: the bucket's root)
   * @param dirKey the directory asked for, without trailing slash, under {@code parentKey}
   */
  Siblings keepSiblings(String parentKey, String dirKey, int budget, int ranges) throws IOException {
    String dirPrefix = parentKey.isEmpty() ? "" : parentKey + "/";
    Node root = new Node(parentKey);
    String last = null;
    boolean whole = true;
    long generation = reuse.generation();
    try (Listing listing = lister.listAfter(bucket, dirPrefix, dirKey, ranges)) {
      try {
        long keys = 0;
        while (listing.hasNext()) {
          if (keys++ >= budget) {
            whole = false;
            break;
          }
          ListEntry e = listing.next();
          add(root, e, dirPrefix.length());
          last = e.key();
        }
      } finally {
        fs.countListing(listing.statistics().get(Counter.LIST_REQUESTS));
      }
      for (Node d : root.dirs.values()) {
        d.check();
      }
    } catch (Unsuitable e) {
      LOG.debug("siblings of {} left to S3A: {}", dirKey, e.getMessage());
      return new Siblings(false, null);
    }
    String unfinished = null;
    if (!whole && last != null) {
      int slash = last.indexOf('/', dirPrefix.length());
      unfinished = slash < 0 ? null : last.substring(dirPrefix.length(), slash);
    }
    List<ListingReuse.Directory> seen = new ArrayList<>();
    boolean asked = false;
    for (Map.Entry<String, Node> d : root.dirs.entrySet()) {
      if (!d.getKey().equals(unfinished)) {
        seen.addAll(d.getValue().subtree());
        asked |= d.getValue().key.equals(dirKey);
      }
    }
    reuse.keep(seen, generation);
    return new Siblings(asked, whole ? null : last);
  }

  /**
   * What {@link #keepSiblings} did: whether the directory asked for was kept, and the last key listed
   * when the budget ended the listing (null: it reached the parent's end, or S3A must judge the layout).
   */
  record Siblings(boolean kept, String lastKey) {}

  /** The child's path as Globber makes it, checked to name the key S3A listed. */
  private Path childPath(Path parent, String name, String key) {
    Path p;
    try {
      p = new Path(parent, name);
    } catch (IllegalArgumentException e) {
      throw new Unsuitable("name " + name + " is no path component");
    }
    if (!p.getName().equals(name) || !fs.pathToKey(p).equals(key)) {
      throw new Unsuitable("name " + name + " does not map back to its key");
    }
    return p;
  }

  /** Every key under {@code listPrefix}, as the tree of the directory {@code dirPrefix}. */
  private Node list(String dirPrefix, String listPrefix) throws IOException {
    Node root = new Node(dirPrefix.isEmpty() ? "" : dirPrefix.substring(0, dirPrefix.length() - 1));
    long keys = 0;
    int max = maxKeys;
    try (Listing listing = lister.list(bucket, listPrefix)) {
      try {
        while (listing.hasNext()) {
          if (++keys > max) {
            throw new Unsuitable("more than " + max + " keys under s3://" + bucket + "/" + listPrefix);
          }
          add(root, listing.next(), dirPrefix.length());
        }
      } finally {
        fs.countListing(listing.statistics().get(Counter.LIST_REQUESTS));
      }
    }
    root.check();
    return root;
  }

  private static void add(Node root, ListEntry e, int from) {
    String key = e.key();
    Node node = root;
    int start = from;
    while (true) {
      int slash = key.indexOf('/', start);
      if (slash < 0) {
        node.objects++; // "dir/", the directory's own marker, is counted as an object and is no file
        if (start < key.length() && !key.endsWith(S3AStatuses.S3N_FOLDER_SUFFIX)) {
          node.files.add(e);
        }
        return;
      }
      if (slash == start) {
        throw new Unsuitable("empty path component in key " + key);
      }
      String name = key.substring(start, slash);
      Node parent = node;
      node = parent.dirs.computeIfAbsent(name, n -> new Node(key.substring(0, slash)));
      start = slash + 1;
    }
  }

  /** A directory as S3A's delimiter listing of it would show it. */
  static final class Node {
    /** Its key, without the trailing slash. */
    final String key;
    /** Subdirectories in S3's order (first key seen under each), as CommonPrefixes list them. */
    final Map<String, Node> dirs = new LinkedHashMap<>();
    /** Files directly in it, in key order; {@code _$folder$} markers left out. */
    final List<ListEntry> files = new ArrayList<>();
    /** Objects directly in it as a delimiter listing counts them: files, its marker, S3N markers. */
    int objects;

    Node(String key) {
      this.key = key;
    }

    /**
     * It and every directory under it, as {@link ListingReuse} keeps them: depth first, each directory
     * before those under it, and the subdirectories of one directory last first.
     */
    List<ListingReuse.Directory> subtree() {
      List<ListingReuse.Directory> out = new ArrayList<>();
      Deque<Node> todo = new ArrayDeque<>();
      todo.push(this);
      while (!todo.isEmpty()) {
        Node n = todo.pop();
        n.dirs.values().forEach(todo::push);
        List<String> subdirs = new ArrayList<>(n.dirs.size());
        n.dirs.values().forEach(d -> subdirs.add(d.key));
        out.add(new ListingReuse.Directory(n.key, n.files, subdirs, n.objects));
      }
      return out;
    }

    /** A name both a file and a directory: S3A lists it twice, Globber judges by more calls. */
    void check() {
      for (ListEntry f : files) {
        String name = f.key().substring(f.key().lastIndexOf('/') + 1);
        if (dirs.containsKey(name)) {
          throw new Unsuitable(f.key() + " is both a file and a directory");
        }
      }
      for (Node d : dirs.values()) {
        d.check();
      }
    }
  }

  private record Match(Node node, Path path, FileStatus status) {}

  /** The layout under the pattern is one S3A must judge: leave the glob to it. */
  private static final class Unsuitable extends RuntimeException {
    Unsuitable(String why) {
      super(why, null, false, false);
    }
  }

  /** A pattern split as Globber splits it; null when it is not one to serve here. */
  record Plan(String scheme, String authority, String[] literals, GlobPattern[] patterns, int first, String head) {
    static Plan of(Path pattern, URI fsUri) {
      URI u = pattern.toUri();
      String scheme = u.getScheme() == null ? fsUri.getScheme() : u.getScheme();
      String authority = u.getAuthority() == null ? fsUri.getAuthority() : u.getAuthority();
      if (!scheme.equals(fsUri.getScheme()) || authority == null || !authority.equals(fsUri.getAuthority())) {
        return null;
      }
      String path = u.getPath();
      if (path == null || !path.startsWith("/") || groupSpansComponents(path)) {
        return null;
      }
      List<String> parts = new ArrayList<>();
      for (String c : path.split("/")) {
        if (!c.isEmpty()) {
          parts.add(c);
        }
      }
      int n = parts.size();
      String[] literals = new String[n];
      GlobPattern[] patterns = new GlobPattern[n];
      int first = -1;
      for (int i = 0; i < n; i++) {
        String c = parts.get(i);
        GlobPattern p;
        try {
          p = new GlobPattern(c);
        } catch (RuntimeException e) {
          return null; // S3A's globStatus reports the bad pattern its own way
        }
        if (p.hasWildcard()) {
          patterns[i] = p;
          if (first < 0) {
            first = i;
          }
        } else {
          String lit = unescape(c);
          if (lit.equals(".") || lit.equals("..") || lit.indexOf(':') >= 0 || lit.isEmpty()) {
            return null;
          }
          literals[i] = lit;
        }
      }
      if (first < 0 || patterns[n - 1] == null) {
        return null; // no wildcard, or a literal last component (Globber asks getFileStatus): S3A's
      }
      String c = parts.get(first);
      int h = 0;
      while (h < c.length() && SPECIAL.indexOf(c.charAt(h)) < 0) {
        h++;
      }
      return new Plan(scheme, authority, literals, patterns, first, c.substring(0, h));
    }

    /** A {@code {...}} group holding a '/': Globber expands it into several patterns. */
    private static boolean groupSpansComponents(String path) {
      int depth = 0;
      for (int i = 0; i < path.length(); i++) {
        char ch = path.charAt(i);
        if (ch == '\\') {
          i++;
        } else if (ch == '{') {
          depth++;
        } else if (ch == '}' && depth > 0) {
          depth--;
        } else if (ch == '/' && depth > 0) {
          return true;
        }
      }
      return false;
    }

    /** A literal component without its backslash escapes, as Globber uses it. */
    private static String unescape(String c) {
      StringBuilder b = new StringBuilder(c.length());
      for (int i = 0; i < c.length(); i++) {
        char ch = c.charAt(i);
        if (ch == '\\' && i + 1 < c.length()) {
          ch = c.charAt(++i);
        }
        b.append(ch);
      }
      return b.toString();
    }
  }
}
