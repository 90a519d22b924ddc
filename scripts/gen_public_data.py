#!/usr/bin/env python3
"""Export the classic public-domain series that statsmodels ships inside its package (no
download) to sample_data/, each with an ISO date column so wavebench uses it as the x axis.

    python scripts/gen_public_data.py      (make sample-data runs it)
"""
import os

import pandas as pd
import statsmodels.api as sm

OUT = "sample_data"


def write(df: pd.DataFrame, name: str) -> None:
    df.to_csv(os.path.join(OUT, name + ".csv"), index=False)


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    sun = sm.datasets.sunspots.load_pandas().data
    sun = pd.DataFrame({"date": [f"{int(y)}-01-01" for y in sun["YEAR"]], "sunactivity": sun["SUNACTIVITY"]})
    write(sun, "sunspots")
    sun.to_parquet(os.path.join(OUT, "sunspots.parquet"), index=False)

    co2 = sm.datasets.co2.load_pandas().data
    write(pd.DataFrame({"date": co2.index.strftime("%Y-%m-%d"), "co2": co2["co2"].values}), "co2")

    nino = sm.datasets.elnino.load_pandas().data
    months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    rows = [(f"{int(r.YEAR)}-{m + 1:02d}-01", getattr(r, mon)) for r in nino.itertuples() for m, mon in enumerate(months)]
    write(pd.DataFrame(rows, columns=["date", "sst"]), "elnino")

    nile = sm.datasets.nile.load_pandas().data
    write(pd.DataFrame({"date": [f"{int(y)}-01-01" for y in nile["year"]], "volume": nile["volume"]}), "nile")


if __name__ == "__main__":
    main()
