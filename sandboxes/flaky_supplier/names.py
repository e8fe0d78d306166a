"""Invented names for the restocking world: cafés, a wholesaler and what they stock.

None of them is a real company or brand. Products are (category, name, price in
minor units); a name is made unique with a size or pack when the catalogue is
larger than this list.
"""

from __future__ import annotations

__all__ = ["PACKS", "PRODUCTS", "SHOPS", "SUPPLIERS"]

SHOPS = ("Little Ember Café", "Quayside Bakehouse", "The Copper Kettle", "Fennel & Rye", "Northlight Coffee")
SUPPLIERS = ("Brightmarket Wholesale", "Carraway Catering Supply", "Dunmore Trade Foods")

PRODUCTS = (
    ("dairy", "Whole milk 2L", 189),
    ("dairy", "Oat drink barista 1L", 215),
    ("dairy", "Soy drink 1L", 165),
    ("dairy", "Double cream 1L", 420),
    ("dairy", "Salted butter 250g", 245),
    ("dairy", "Greek yoghurt 1kg", 390),
    ("dry goods", "Plain flour 16kg", 1450),
    ("dry goods", "Strong white flour 16kg", 1690),
    ("dry goods", "Caster sugar 5kg", 720),
    ("dry goods", "Rolled oats 3kg", 560),
    ("dry goods", "Cocoa powder 1kg", 980),
    ("dry goods", "Dried yeast 500g", 640),
    ("coffee", "Espresso beans 1kg", 2150),
    ("coffee", "Decaf beans 1kg", 2290),
    ("coffee", "Filter coffee 500g", 1120),
    ("tea", "Breakfast tea bags (400)", 1340),
    ("tea", "Green tea bags (100)", 560),
    ("tea", "Peppermint tea bags (100)", 540),
    ("packaging", "Paper cups 12oz (1000)", 6200),
    ("packaging", "Cup lids 12oz (1000)", 3400),
    ("packaging", "Kraft takeaway bags (500)", 2850),
    ("packaging", "Napkins 2-ply (2000)", 1990),
    ("packaging", "Wooden stirrers (1000)", 780),
    ("packaging", "Sandwich wedges (500)", 3650),
    ("cleaning", "Dishwasher tablets (200)", 2450),
    ("cleaning", "Surface sanitiser 5L", 1380),
    ("cleaning", "Blue roll (6)", 1890),
    ("cleaning", "Bin liners (200)", 1560),
    ("produce", "Bananas (case)", 1350),
    ("produce", "Lemons (case)", 1620),
    ("produce", "Free-range eggs (180)", 3990),
    ("bakery", "Chocolate chunks 2.5kg", 2480),
    ("bakery", "Vanilla extract 500ml", 1790),
    ("bakery", "Ground almonds 1kg", 1240),
    ("syrups", "Caramel syrup 1L", 690),
    ("syrups", "Vanilla syrup 1L", 690),
    ("syrups", "Hazelnut syrup 1L", 690),
)

PACKS = ("", ", catering pack", ", value", ", organic", ", twin pack", ", trade", ", bulk", ", select",
         ", classic", ", premium", ", eco")
