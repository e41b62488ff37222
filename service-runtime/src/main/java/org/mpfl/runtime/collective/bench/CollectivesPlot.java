package org.mpfl.runtime.collective.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The benchmark's PNG: one panel per operation (time against N on log-log axes; barrier against p),
 * a line per algorithm at the largest p measured with the first transport, and MPJ Express niodev
 * dashed. Drawn with Java2D so that no plotting tool is needed.
 */
final class CollectivesPlot {
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2)};
    private static final int W = 700;
    private static final int H = 480;

    private CollectivesPlot() {
    }

    static void write(List<CollectivesBenchmark.Result> results, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(2 * W, 2 * H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, 2 * W, 2 * H);
        String transport = results.isEmpty() ? "auto" : results.get(0).transport();
        int maxP = results.stream().filter(r -> !r.op().equals("barrier")).mapToInt(CollectivesBenchmark.Result::p).max().orElse(0);
        String[] ops = {"bcast", "gather", "allreduce", "barrier"};
        for (int k = 0; k < ops.length; k++) {
            Graphics2D panel = (Graphics2D) g.create((k % 2) * W, (k / 2) * H, W, H);
            panel(panel, results, ops[k], transport, maxP);
            panel.dispose();
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }

    private record Series(String label, List<double[]> points, boolean dashed) {
    }

    private static void panel(Graphics2D g, List<CollectivesBenchmark.Result> all, String op, String transport, int maxP) {
        boolean barrier = op.equals("barrier");
        List<String> algs = new ArrayList<>();
        for (CollectivesBenchmark.Result r : all) {
            if (r.op().equals(op) && r.transport().equals(transport) && !algs.contains(r.algorithm())) {
                algs.add(r.algorithm());
            }
        }
        List<Series> series = new ArrayList<>();
        for (String alg : algs) {
            List<double[]> pts = new ArrayList<>();
            for (CollectivesBenchmark.Result r : all) {
                if (r.op().equals(op) && r.transport().equals(transport) && r.algorithm().equals(alg)
                        && (barrier || r.p() == maxP) && r.medianUs() > 0) {
                    pts.add(new double[] {barrier ? r.p() : r.n(), r.medianUs()});
                }
            }
            series.add(new Series(alg, pts, false));
        }
        List<double[]> mpj = new ArrayList<>();
        for (double[] pt : series.isEmpty() ? List.<double[]>of() : series.get(0).points()) {
            double v = barrier ? MpjCollectivesReference.niodev(op, (int) pt[0], 0) : MpjCollectivesReference.niodev(op, maxP, (int) pt[0]);
            if (!Double.isNaN(v)) {
                mpj.add(new double[] {pt[0], v});
            }
        }
        series.add(new Series("MPJ Express niodev", mpj, true));
        double xmin = Double.MAX_VALUE;
        double xmax = -Double.MAX_VALUE;
        double ymin = Double.MAX_VALUE;
        double ymax = -Double.MAX_VALUE;
        for (Series s : series) {
            for (double[] p : s.points()) {
                xmin = Math.min(xmin, p[0]);
                xmax = Math.max(xmax, p[0]);
                ymin = Math.min(ymin, p[1]);
                ymax = Math.max(ymax, p[1]);
            }
        }
        int left = 70;
        int right = W - 20;
        int top = 40;
        int bottom = H - 50;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(barrier ? "barrier (" + transport + "), time vs p"
                : op + " (" + transport + "), p=" + maxP + ", time vs N (N×N doubles)", left, 25);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawRect(left, top, right - left, bottom - top);
        if (xmin == Double.MAX_VALUE) {
            g.drawString("no data", left + 20, top + 30);
            return;
        }
        double lx0 = Math.log10(xmin);
        double lx1 = Math.log10(xmax);
        if (lx1 - lx0 < 1e-9) {
            lx0 -= 0.5;
            lx1 += 0.5;
        }
        double ly0 = Math.floor(Math.log10(ymin));
        double ly1 = Math.ceil(Math.log10(ymax));
        if (ly1 - ly0 < 1) {
            ly1 = ly0 + 1;
        }
        for (double e = ly0; e <= ly1; e++) {
            int y = (int) (bottom - (e - ly0) / (ly1 - ly0) * (bottom - top));
            g.setColor(new Color(0xdddddd));
            g.drawLine(left, y, right, y);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.0f us", Math.pow(10, e)), 5, y + 4);
        }
        for (Series s : series) {
            for (double[] p : s.points()) {
                int x = (int) (left + (Math.log10(p[0]) - lx0) / (lx1 - lx0) * (right - left - 30) + 15);
                g.setColor(Color.BLACK);
                g.drawString(String.format(Locale.ROOT, "%.0f", p[0]), x - 8, bottom + 15);
            }
        }
        g.drawString(barrier ? "p (ranks)" : "N", (left + right) / 2, bottom + 35);
        int legendY = top + 15;
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            Color c = s.dashed() ? Color.BLACK : COLORS[i % COLORS.length];
            g.setColor(c);
            g.setStroke(s.dashed() ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke(2f));
            int px = -1;
            int py = -1;
            for (double[] p : s.points()) {
                int x = (int) (left + (Math.log10(p[0]) - lx0) / (lx1 - lx0) * (right - left - 30) + 15);
                int y = (int) (bottom - (Math.log10(p[1]) - ly0) / (ly1 - ly0) * (bottom - top));
                g.fillOval(x - 3, y - 3, 6, 6);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            g.drawLine(left + 10, legendY - 4, left + 35, legendY - 4);
            g.setStroke(new BasicStroke(1f));
            g.drawString(s.label(), left + 40, legendY);
            legendY += 15;
        }
    }
}
