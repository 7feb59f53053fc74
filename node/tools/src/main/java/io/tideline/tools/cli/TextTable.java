package io.tideline.tools.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A text table with a header row and columns padded to their widest cell, two spaces apart; the last
 * column is not padded (it may be long). Times print as ISO-8601 (Instant.toString) and -1 as "-".
 * Not thread-safe.
 */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    TextTable(String... header) {
        rows.add(header);
    }

    TextTable row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = String.valueOf(cells[i]);
        }
        rows.add(r);
        return this;
    }

    void print(PrintStream out) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns - 1; i++) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i < columns - 1 ? String.format("%-" + widths[i] + "s  ", r[i]) : r[i]);
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** Epoch ms as ISO-8601, or "-" for -1 (none). */
    static String time(long epochMs) {
        return epochMs < 0 ? "-" : Instant.ofEpochMilli(epochMs).toString();
    }
}
