/**
 * The validators of the activity elements, one small class per element type (or per tight family such
 * as {@code send}/{@code isend}), in the manner of Zeebe's model validators: each reads its element's
 * attributes, reports every problem it finds into the shared {@link org.mpfl.compiler.check.activity.ActivityContext},
 * and returns the typed IR activity, or null if something was wrong. Nothing is thrown, so one run
 * reports every error of a document.
 */
package org.mpfl.compiler.check.activity;
