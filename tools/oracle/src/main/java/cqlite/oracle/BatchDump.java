package cqlite.oracle;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Runs Cassandra's own sstabledump entry point (SSTableExport.main) once per
 * input file inside a single JVM, so the JVM start-up and Cassandra's tool
 * initialisation are paid only once.
 *
 * SSTableExport.main always ends in System.exit; a security manager turns that
 * call into an exception carrying the status, which is then treated exactly
 * like the exit code of a separate sstabledump process.
 *
 * Usage: BatchDump outdir file...
 * For every input, outdir/NAME.json receives the tool's stdout when it
 * succeeds, or outdir/NAME.err receives its stderr (plus any uncaught
 * exception) when it fails. NAME is the input path with every character
 * outside [A-Za-z0-9._-] replaced by '_'. One manifest line per input goes to
 * stdout and to outdir/manifest.tsv:
 *   OK|FAIL  exit-status  millis  input  output-file  [first error line]
 */
public final class BatchDump
{
    static final String EXPORT_CLASS = "org.apache.cassandra.tools.SSTableExport";

    /** Thrown in place of System.exit while a dump is running. */
    static final class ExitTrapped extends SecurityException
    {
        final int status;

        ExitTrapped(int status)
        {
            super("System.exit(" + status + ") intercepted");
            this.status = status;
        }
    }

    @SuppressWarnings("removal")
    static final class ExitTrap extends SecurityManager
    {
        volatile boolean armed = true;

        @Override
        public void checkPermission(Permission perm)
        {
        }

        @Override
        public void checkPermission(Permission perm, Object context)
        {
        }

        @Override
        public void checkExit(int status)
        {
            if (armed)
                throw new ExitTrapped(status);
        }
    }

    private BatchDump()
    {
    }

    static String sanitize(String path)
    {
        StringBuilder sb = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++)
        {
            char c = path.charAt(i);
            boolean keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                           || c == '.' || c == '-' || c == '_';
            sb.append(keep ? c : '_');
        }
        int start = 0;
        while (start < sb.length() - 1 && sb.charAt(start) == '_')
            start++;
        return sb.substring(start);
    }

    private static String firstLine(String text)
    {
        for (String line : text.split("\n"))
        {
            String t = line.trim();
            if (!t.isEmpty() && !t.startsWith("WARNING:"))
                return t.replace('\t', ' ');
        }
        return "";
    }

    @SuppressWarnings("removal")
    public static void main(String[] args) throws Exception
    {
        if (args.length < 1)
        {
            System.err.println("usage: sstabledump-batch <outdir> <Data.db>...");
            System.exit(2);
        }
        Path outDir = Paths.get(args[0]);
        Files.createDirectories(outDir);

        PrintStream realOut = System.out;
        PrintStream realErr = System.err;

        // Load the tool class (and run Cassandra's tool initialisation) up front,
        // so that one-off start-up noise is not attributed to the first file.
        Class<?> export = Class.forName(EXPORT_CLASS);
        Method exportMain = export.getMethod("main", String[].class);

        ExitTrap trap = new ExitTrap();
        System.setSecurityManager(trap);

        Set<String> usedNames = new HashSet<>();
        int ok = 0, failed = 0;
        long batchStart = System.nanoTime();
        try (PrintStream manifest = new PrintStream(new FileOutputStream(outDir.resolve("manifest.tsv").toFile()), true, "UTF-8"))
        {
            for (int i = 1; i < args.length; i++)
            {
                String input = args[i];
                String base = sanitize(input);
                String name = base;
                for (int n = 2; !usedNames.add(name); n++)
                    name = base + "~" + n;

                Path jsonFile = outDir.resolve(name + ".json");
                Path errFile = outDir.resolve(name + ".err");
                Files.deleteIfExists(jsonFile);
                Files.deleteIfExists(errFile);

                ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
                PrintStream errStream = new PrintStream(errBytes, true, "UTF-8");
                int status;
                Throwable uncaught = null;
                long start = System.nanoTime();
                try (OutputStream fileOut = new BufferedOutputStream(new FileOutputStream(jsonFile.toFile()), 1 << 16);
                     PrintStream outStream = new PrintStream(fileOut, false, "UTF-8"))
                {
                    System.setOut(outStream);
                    System.setErr(errStream);
                    status = 0; // main returning normally behaves like exit(0)
                    try
                    {
                        exportMain.invoke(null, (Object) new String[]{ input });
                    }
                    catch (InvocationTargetException e)
                    {
                        Throwable cause = e.getCause();
                        if (cause instanceof ExitTrapped)
                        {
                            status = ((ExitTrapped) cause).status;
                        }
                        else
                        {
                            // What the JVM does for an exception escaping main.
                            uncaught = cause;
                            status = 1;
                        }
                    }
                    catch (Throwable t)
                    {
                        uncaught = t;
                        status = 1;
                    }
                    outStream.flush();
                }
                finally
                {
                    System.setOut(realOut);
                    System.setErr(realErr);
                }
                long millis = (System.nanoTime() - start) / 1_000_000;

                StringBuilder errText = new StringBuilder(errBytes.toString(StandardCharsets.UTF_8));
                if (uncaught != null)
                {
                    StringWriter sw = new StringWriter();
                    uncaught.printStackTrace(new PrintWriter(sw));
                    errText.append("Exception in thread \"main\" ").append(sw);
                }
                // SSTableExport catches IOException, prints its stack trace and still exits 0
                // with truncated output; count that as a failure as well.
                boolean stackTraceWithZeroExit = status == 0 && errText.indexOf("\tat ") >= 0;
                String line;
                if (status == 0 && !stackTraceWithZeroExit)
                {
                    ok++;
                    line = String.join("\t", "OK", "0", Long.toString(millis), input, jsonFile.getFileName().toString());
                    if (errText.length() > 0)
                        Files.write(outDir.resolve(name + ".stderr"), errText.toString().getBytes(StandardCharsets.UTF_8));
                }
                else
                {
                    failed++;
                    Files.deleteIfExists(jsonFile);
                    Files.write(errFile, errText.toString().getBytes(StandardCharsets.UTF_8));
                    line = String.join("\t", "FAIL", Integer.toString(status), Long.toString(millis), input,
                                       errFile.getFileName().toString(), firstLine(errText.toString()));
                }
                realOut.println(line);
                realOut.flush();
                manifest.println(line);
            }
        }
        long total = (System.nanoTime() - batchStart) / 1_000_000;
        realErr.println(String.format(Locale.ROOT, "sstabledump-batch: %d ok, %d failed, %d ms", ok, failed, total));
        realErr.flush();
        trap.armed = false;
        System.setSecurityManager(null);
        // Cassandra may leave non-daemon threads behind; leave explicitly.
        Runtime.getRuntime().halt(failed == 0 ? 0 : 1);
    }
}
