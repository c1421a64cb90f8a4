"""California's counties drawn with geometry=True: an estimate and its margin of error side by side.

    CDS_BASE_URL=… CDS_API_KEY=… python3 california_counties.py [out.png] [variable] [vintage]

The default, B25001_001E (housing units, ACS 5-year 2022), is a county figure with a published
MOE that the sample data build holds; on a full build pass B19013_001E (median household income).
Needs matplotlib and geopandas (Debian: python3-matplotlib python3-geopandas).
"""

import sys

import matplotlib
import matplotlib.colors

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

from census_data_service import Client  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "california_counties.png"
variable = sys.argv[2] if len(sys.argv) > 2 else "B25001_001E"
vintage = int(sys.argv[3]) if len(sys.argv) > 3 else 2022

cds = Client()
ca = cds.data(variable, geo="county:06*", vintage=vintage, geometry=True)
label = ca["table_title"].iloc[0] if "table_title" in ca else ca["label"].iloc[0]
period = ca.attrs["meta"]["source"]["reference_period"]

# Albers equal-area for California (EPSG:3310) so the shapes look as on a state map.
ca = ca.to_crs(3310)
ca["cv"] = ca["moe"] / 1.645 / ca["estimate"] * 100  # coefficient of variation, %

fig, axes = plt.subplots(1, 2, figsize=(11, 6.5))
# A log scale: Los Angeles County would otherwise make every other county look alike.
ca.plot(column="estimate", cmap="viridis", legend=True, ax=axes[0], edgecolor="white", linewidth=0.3,
        norm=matplotlib.colors.LogNorm(vmin=ca["estimate"].min(), vmax=ca["estimate"].max()),
        legend_kwds={"shrink": 0.6}, missing_kwds={"color": "lightgrey", "label": "no value"})
axes[0].set_title(f"{label} ({variable}), estimate")
ca.plot(column="cv", cmap="magma_r", legend=True, ax=axes[1], edgecolor="white", linewidth=0.3,
        legend_kwds={"shrink": 0.6, "label": "%"}, missing_kwds={"color": "lightgrey", "label": "no MOE"})
axes[1].set_title("its 90% margin of error as a coefficient of variation")
for ax in axes:
    ax.set_axis_off()
fig.suptitle(f"California counties, ACS 5-year {period} — {len(ca)} counties via Census Data Service (geometry=True)")
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}: {len(ca)} counties, {ca['estimate'].notna().sum()} with an estimate, {ca['moe'].notna().sum()} with an MOE")
